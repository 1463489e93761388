// Package all lists every product ratelab reads: the one place a product is
// added (docs/adding-a-product.md). The command line (--config,
// --config-format, --target and their completion), the scenario compiler (a
// lane's product) and the messages that name the products read this list.
package all

import (
	"ratelab/products"
	"ratelab/products/envoy"
	"ratelab/products/haproxy"
	"ratelab/products/nginx"
)

// Products are the products ratelab reads, in the order they are shown.
var Products = products.List{nginx.Info, haproxy.Info, envoy.Local, envoy.Global,
	products.Cloudflare, products.APIGateway, products.Spring, products.Traefik, products.Kong}
