module github.com/junction-wamp/junction

go 1.26.8

require (
	github.com/fxamacker/cbor/v2 v2.9.6
	github.com/gobwas/httphead v0.1.0
	github.com/gobwas/ws v1.5.0
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/crypto v0.59.0
)

require (
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
