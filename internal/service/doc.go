// Package service is what every front end of cmcdap calls to check and replay a model: the CLI
// (cmd/cmcdap), the DAP session (internal/dap) and the browser views (internal/views). It plays
// the part Delve's service/debugger plays for its front ends: a front end parses its own protocol
// (flags, launch attributes, HTTP) into the types here, and renders what comes back; how a
// package is resolved and built, how a model is chosen, how a bookmark becomes a starting state,
// how a run is stored and how the worker is asked to replay a trace are decided here, once.
//
// It wraps internal/coord (the worker process), store (the run record) and the worker's wire
// types (worker.Request and its arguments), which no front end builds by hand.
package service
