package views

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/webview"
)

// Handler returns the server's HTTP routes: the page (for /, /trace/ID and /compare/A/B), its bundle under
// /assets/, the websocket at /ws, and POST /api/show for tools that drive an open page.
func (s *Server) Handler() http.Handler {
	dist, err := fs.Sub(webview.FS, "dist")
	if err != nil {
		panic(err) // the embed pattern guarantees dist exists
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page(dist))
	mux.HandleFunc("GET /trace/{id}", s.page(dist))
	mux.HandleFunc("GET /compare/{a}/{b}", s.page(dist))
	mux.Handle("GET /assets/", s.authed(http.StripPrefix("/assets/", assets(dist))))
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("POST /api/show", s.apiShow)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		mux.ServeHTTP(w, r)
	})
}

func unauthorized(w http.ResponseWriter) {
	http.Error(w, "cmc views: this needs the session token: open the URL cmcdap printed (it ends in ?token=...)", http.StatusUnauthorized)
}

// page serves the single page. A visit with ?token= sets the cookie and redirects to the same
// address without it, so the token does not stay in the address bar or the history.
func (s *Server) page(dist fs.FS) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, fromQuery := tokenOf(r)
		if !s.validToken(tok) {
			unauthorized(w)
			return
		}
		if fromQuery {
			http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			// Relative (the last path element, or ./), so that behind a proxy that serves the
			// page under a path (code-server's /proxy/PORT/) the browser stays under it.
			loc := path.Base(r.URL.Path)
			if strings.HasSuffix(r.URL.Path, "/") {
				loc = "./"
			}
			if len(q) > 0 {
				loc += "?" + q.Encode()
			}
			w.Header().Set("Location", loc)
			w.WriteHeader(http.StatusSeeOther)
			return
		}
		b, err := fs.ReadFile(dist, "index.html")
		if err != nil {
			http.Error(w, "views bundle missing: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(relativeAssets(b, r.URL.Path))
	}
}

// relativeAssets points the page's ./assets/ references at the server's /assets/ from the page's
// path (../assets/ from /trace/12), keeping them relative: behind a proxy that serves the views
// under a path, an absolute /assets/ would leave it.
func relativeAssets(page []byte, urlPath string) []byte {
	depth := strings.Count(strings.TrimPrefix(urlPath, "/"), "/")
	if depth == 0 {
		return page
	}
	return bytes.ReplaceAll(page, []byte(`"./assets/`), []byte(`"`+strings.Repeat("../", depth)+"assets/"))
}

// assets serves the bundle's files, never the page itself.
func assets(dist fs.FS) http.Handler {
	files := http.FileServerFS(dist)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

func (s *Server) authed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok, _ := tokenOf(r); !s.validToken(tok) {
			unauthorized(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// apiShow is Show over HTTP (POST /api/show?trace=ID&step=N). The token must be in the
// X-CMC-Token header or the query: a cookie alone is not enough, so another site cannot post it.
func (s *Server) apiShow(w http.ResponseWriter, r *http.Request) {
	tok := r.Header.Get("X-CMC-Token")
	if tok == "" {
		tok = r.URL.Query().Get("token")
	}
	if !s.validToken(tok) {
		unauthorized(w)
		return
	}
	id, err1 := strconv.ParseInt(r.URL.Query().Get("trace"), 10, 64)
	step, err2 := strconv.Atoi(r.URL.Query().Get("step"))
	if err1 != nil || err2 != nil || step < 0 {
		http.Error(w, "want ?trace=ID&step=N", http.StatusBadRequest)
		return
	}
	s.Show(id, step)
	w.WriteHeader(http.StatusNoContent)
}
