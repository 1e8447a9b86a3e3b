package mcpserver

import (
	"encoding/json"
	"sync"
)

// The tools' schemas are made ahead of time: generating them (reflection
// over the types, then jsonschema-go's encoder) took 22.6 of the 58 million
// instructions from exec to the first tools/list answered (callgrind), on
// every start and again for every session of an isolated HTTP coordinator,
// for the same bytes each time. schemas_gen.go holds them, keyed by tool,
// direction and type; TestSchemasMadeAheadAreTheTypes builds every surface
// with the schemas made now and checks each against it (-update rewrites
// the file). A key it lacks is made now, as before.

// ahead holds the schemas made ahead as bytes, each converted once and
// shared by every server built (an isolated HTTP coordinator builds one
// per session): nothing changes a tool's schema once it is made.
var ahead struct {
	sync.Mutex
	bytes map[string]json.RawMessage
}

// schemaMadeAhead is key's schema from schemas_gen.go, unless there is
// none or a test makes every schema now.
func schemaMadeAhead(key string) (json.RawMessage, bool) {
	if schemasMadeNow() {
		return nil, false
	}
	ahead.Lock()
	defer ahead.Unlock()
	if b, ok := ahead.bytes[key]; ok {
		return b, true
	}
	s, ok := precomputedSchema(key)
	if !ok {
		return nil, false
	}
	if ahead.bytes == nil {
		ahead.bytes = map[string]json.RawMessage{}
	}
	ahead.bytes[key] = json.RawMessage(s)
	return ahead.bytes[key], true
}

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
