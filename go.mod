module ratelab

go 1.26.0

require (
	github.com/pelletier/go-toml/v2 v2.4.3 // indirect
	golang.org/x/time v0.16.0 // indirect
)
