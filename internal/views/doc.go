// Package views shapes a stored trace into what the views draw, and serves it to them.
//
// The views are the heap graph of a state (as Graphviz DOT text), the diff of a step (rows of
// paths with old and new values) and the message sequence chart of a whole trace (lifelines,
// steps, arrows). All of it is computed and unit-tested here, in Go; the browser bundle in
// webview/ only lays out the DOT with Graphviz-in-WebAssembly and draws. The same bundle runs in a
// VS Code webview panel (cmcdap's DAP session calls Server.Show on every stop) and standalone in a
// browser (cmcdap serve).
//
// The Server speaks HTTP for the page and a websocket for data: request/response messages with
// ids, and pushes of the step to show. Both need the per-session token; the websocket also checks
// the Origin. See docs/views.md for the wire format.
package views
