package products

func readCloudflare(name string, data []byte) (*Config, error) {
	return nil, errorf(Place{File: name}, "ratelab does not read Cloudflare's rules yet")
}

func readAPIGateway(name string, data []byte) (*Config, error) {
	return nil, errorf(Place{File: name}, "ratelab does not read API Gateway's JSON yet")
}
