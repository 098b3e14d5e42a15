// Package webview holds the built browser bundle of the views (heap graph, state diff, sequence
// chart, trace list), embedded so cmcdap serves it without npm. The TypeScript sources are in
// src/; `npm run build` here writes dist/, which is committed. See docs/views.md.
package webview

import "embed"

// FS holds dist/: index.html, app.js and app.css.
//
//go:embed dist
var FS embed.FS
