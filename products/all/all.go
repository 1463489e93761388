// Package all lists every product ratelab reads: the one place a product is
// added (docs/adding-a-product.md). The command line (--config,
// --config-format, --target and their completion), the scenario compiler (a
// lane's product) and the messages that name the products read this list.
package all

import (
	"ratelab/products"
	"ratelab/products/apigateway"
	"ratelab/products/cloudflare"
	"ratelab/products/envoy"
	"ratelab/products/gubernator"
	"ratelab/products/haproxy"
	"ratelab/products/kong"
	"ratelab/products/nginx"
	"ratelab/products/spring"
	"ratelab/products/traefik"
)

// Products are the products ratelab reads, in the order they are shown.
var Products = products.List{nginx.Info, haproxy.Info, envoy.Local, envoy.Global,
	cloudflare.Info, apigateway.Info, spring.Info, traefik.Info, kong.Info, gubernator.Info}
