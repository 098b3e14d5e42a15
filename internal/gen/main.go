// Command gen writes, from Go, the places outside Go that describe what cmcdap and its clients
// say to each other, so they cannot drift from what the Go code accepts and sends:
//
//   - from the launch attribute table dap.LaunchAttrs (internal/dap/launchconfig.go):
//     vscode-extension/package.json's debugger launch properties (the editor's schema),
//     vscode-extension/src/launchAttrs.gen.ts (the TypeScript type and the table config.ts
//     checks with) and docs/launch.md's attribute table, between its "generated" markers;
//   - from the custom DAP requests and events (dap.CustomMessages: the Go types they carry and
//     a line on each): vscode-extension/src/protocol.gen.ts and docs/launch.md's tables of them;
//   - from the requests the views server answers (views.Ops) and what it pushes:
//     webview/src/types.gen.ts and docs/views.md's table of ops.
//
// Run it with `go generate ./internal/gen` from the repository root; `make vet` fails when a
// generated file differs from what is committed.
package main

//go:generate go run .

import (
	"bytes"
	"errors"
	"flag"
	"log"
	"os"
	"path/filepath"
)

func main() {
	root := flag.String("root", "../..", "the repository root")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	for _, f := range []struct {
		path string
		gen  func([]byte) ([]byte, error)
	}{
		{"vscode-extension/package.json", packageJSON},
		{"vscode-extension/src/launchAttrs.gen.ts", func([]byte) ([]byte, error) { return launchTypeScript(), nil }},
		{"docs/launch.md", func(old []byte) ([]byte, error) {
			b, err := launchDoc(old)
			if err != nil {
				return nil, err
			}
			return customRequestsDoc(b)
		}},
		{"vscode-extension/src/protocol.gen.ts", func([]byte) ([]byte, error) { return protocolTypeScript() }},
		{"webview/src/types.gen.ts", func([]byte) ([]byte, error) { return viewsTypeScript() }},
		{"docs/views.md", viewsOpsDoc},
	} {
		path := filepath.Join(*root, f.path)
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Fatal(err)
		}
		b, err := f.gen(old)
		if err != nil {
			log.Fatalf("%s: %v", f.path, err)
		}
		if !bytes.Equal(b, old) {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
}
