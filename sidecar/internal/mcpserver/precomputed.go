package mcpserver

import "sync"

// The tools' schemas are made ahead of time: generating them (reflection
// over the types, then jsonschema-go's encoder) took 25 of the 58 million
// instructions from exec to the first tools/list answered (callgrind), on
// every start and again for every session of an isolated HTTP coordinator,
// for the same bytes each time. schemas_gen.go holds them, keyed by tool,
// direction and type; TestSchemasMadeAheadAreTheTypes builds every surface
// with the schemas made now and checks each against it (-update rewrites
// the file). A key it lacks is made now, as before.

// made collects the schemas made now, while a test asks for them.
var made struct {
	sync.Mutex
	on      bool
	schemas map[string]string
}

// schemasMadeNow says whether schemaOf makes every schema now (a test).
func schemasMadeNow() bool {
	made.Lock()
	defer made.Unlock()
	return made.on
}

// madeNow records the schema made now for key, while a test collects them.
func madeNow(key string, b []byte) {
	made.Lock()
	defer made.Unlock()
	if made.on {
		made.schemas[key] = string(b)
	}
}
