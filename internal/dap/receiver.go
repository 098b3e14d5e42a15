package dap

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A hover over handler code names the acting process through the receiver of the method the
// mouse is in (r.routes in func (r *Router) Receive). Which names are receivers is read from the
// source, not guessed: the method enclosing the hovered line, and the struct type it is declared
// on, from the Go files of that package as they are on disk now.

// A receiver is the receiver of the method at a source line: its name and the fields of its
// struct type (nil when the type is not a struct declared in the package).
type receiver struct {
	name   string
	fields map[string]bool
}

// goSources parses Go files on demand and keeps them while they are unchanged on disk.
type goSources struct {
	files map[string]parsedFile
}

type parsedFile struct {
	mod  time.Time
	size int64
	f    *ast.File
	fset *token.FileSet
}

// file is the parsed file at path, or nil when it cannot be read or parsed.
func (g *goSources) file(path string) (*ast.File, *token.FileSet) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil
	}
	if p, ok := g.files[path]; ok && p.mod.Equal(fi.ModTime()) && p.size == fi.Size() {
		return p.f, p.fset
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil
	}
	if g.files == nil {
		g.files = map[string]parsedFile{}
	}
	g.files[path] = parsedFile{mod: fi.ModTime(), size: fi.Size(), f: f, fset: fset}
	return f, fset
}

// receiverAt is the receiver of the method whose body holds line (1-based) of file; ok is false
// when the line is in no method (a function, a closure in a function, outside any function).
func (g *goSources) receiverAt(file string, line int) (r receiver, ok bool) {
	f, fset := g.file(file)
	if f == nil {
		return receiver{}, false
	}
	for _, d := range f.Decls {
		fn, isFunc := d.(*ast.FuncDecl)
		if !isFunc || fn.Body == nil || fn.Recv == nil || len(fn.Recv.List) != 1 || len(fn.Recv.List[0].Names) != 1 {
			continue
		}
		if fset.Position(fn.Pos()).Line > line || fset.Position(fn.End()).Line < line {
			continue
		}
		name := fn.Recv.List[0].Names[0].Name
		if name == "_" {
			return receiver{}, false
		}
		return receiver{name: name, fields: g.structFields(file, typeName(fn.Recv.List[0].Type))}, true
	}
	return receiver{}, false
}

// typeName is the name of a receiver's type: T for T, *T, T[K] and *T[K].
func typeName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// structFields are the field names of the struct type name declared in file's package (embedded
// fields by their type's name), or nil.
func (g *goSources) structFields(file, name string) map[string]bool {
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.go"))
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, _ := g.file(p)
		if f == nil {
			continue
		}
		for _, d := range f.Decls {
			gd, isGen := d.(*ast.GenDecl)
			if !isGen || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				st, isStruct := ts.Type.(*ast.StructType)
				if ts.Name.Name != name || !isStruct {
					continue
				}
				fields := map[string]bool{}
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						fields[n.Name] = true
					}
					if len(fl.Names) == 0 {
						fields[typeName(fl.Type)] = true
					}
				}
				return fields
			}
		}
	}
	return nil
}

// isTypeOf says whether a process's variable has the receiver's type, as far as the state
// shows: every field the state has of it is a field of the receiver's struct.
func (r receiver) isTypeOf(n *node) bool {
	for len(n.kids) == 1 && n.kids[0].name == "*" {
		n = n.kids[0]
	}
	if r.fields == nil || len(n.kids) == 0 {
		return false
	}
	for _, k := range n.kids {
		if !r.fields[k.name] {
			return false
		}
	}
	return true
}

// processVarAt is the variable a handler closure names its process by: in
//
//	m.Process(me.Name, me).On("receive", func() { ... me.Routes ... })
//	p := m.Process(id.String(), r); p.On("receive", func() { ... r.routes ... })
//
// me and r, when line is inside the closure registered by On that starts at handlerLine (the
// step's handler site); ok is false anywhere else. That closure runs only as its own process's
// handler, so in the step it is the acting process.
func (g *goSources) processVarAt(file string, line, handlerLine int) (name string, ok bool) {
	f, fset := g.file(file)
	if f == nil {
		return "", false
	}
	lineOf := func(n ast.Node) (int, int) { return fset.Position(n.Pos()).Line, fset.Position(n.End()).Line }
	var decl *ast.FuncDecl // the function that registers the handler
	var on *ast.CallExpr   // the On call whose closure it is
	ast.Inspect(f, func(n ast.Node) bool {
		if on != nil || n == nil {
			return false
		}
		if d, isDecl := n.(*ast.FuncDecl); isDecl {
			decl = d
		}
		call, isCall := n.(*ast.CallExpr)
		if !isCall || !isMethod(call.Fun, "On") {
			return true
		}
		for _, a := range call.Args {
			lit, isLit := a.(*ast.FuncLit)
			if !isLit {
				continue
			}
			if from, to := lineOf(lit); from == handlerLine && from <= line && line <= to {
				on = call
			}
		}
		return true
	})
	if on == nil || decl == nil {
		return "", false
	}
	// The process the On chain starts from: m.Process(name, X), directly or through a variable.
	x := on.Fun.(*ast.SelectorExpr).X
	for {
		switch e := x.(type) {
		case *ast.CallExpr:
			if isMethod(e.Fun, "Process") && len(e.Args) == 2 {
				id, isIdent := e.Args[1].(*ast.Ident)
				return identName(id, isIdent)
			}
			if !isMethod(e.Fun, "On") {
				return "", false
			}
			x = e.Fun.(*ast.SelectorExpr).X // p.On(...).On(...)
		case *ast.Ident:
			v := assignedTo(decl, e.Name)
			if v == nil {
				return "", false
			}
			x = v
		default:
			return "", false
		}
	}
}

func isMethod(fun ast.Expr, name string) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

func identName(id *ast.Ident, ok bool) (string, bool) {
	if !ok || id.Name == "_" {
		return "", false
	}
	return id.Name, true
}

// assignedTo is the value the only := or = of name in fn gives it, or nil.
func assignedTo(fn *ast.FuncDecl, name string) ast.Expr {
	var v ast.Expr
	n := 0
	ast.Inspect(fn, func(node ast.Node) bool {
		as, ok := node.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, l := range as.Lhs {
			if id, isIdent := l.(*ast.Ident); isIdent && id.Name == name {
				v, n = as.Rhs[i], n+1
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return v
}
