package views

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestWebsocketAuth(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct {
		name, token, origin string
		status              int
	}{
		{"no token", "", ts.hs.URL, http.StatusUnauthorized},
		{"wrong token", ts.Token() + "x", ts.hs.URL, http.StatusUnauthorized},
		{"other site", ts.Token(), "http://evil.example", http.StatusForbidden},
		{"other port", ts.Token(), "http://127.0.0.1:1", http.StatusForbidden},
		{"null origin", ts.Token(), "null", http.StatusForbidden},
		{"same origin", ts.Token(), ts.hs.URL, http.StatusSwitchingProtocols},
		{"vscode webview", ts.Token(), "vscode-webview://1234abcd", http.StatusSwitchingProtocols},
		{"no origin (not a browser)", ts.Token(), "", http.StatusSwitchingProtocols},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, resp, err := ts.dial(t, c.token, c.origin)
			if ws != nil {
				ws.Close()
			}
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d (%v)", resp.StatusCode, c.status, err)
			}
		})
	}
}

func TestPages(t *testing.T) {
	ts := newTestServer(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, cookie *http.Cookie) *http.Response {
		req, _ := http.NewRequest("GET", ts.hs.URL+path, nil)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := get("/trace/7?step=1", nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("page without token: %d", r.StatusCode)
	}
	if r := get("/assets/index.html", nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("assets without token: %d", r.StatusCode)
	}
	// The redirect is relative, so a proxy's path prefix (code-server's /proxy/PORT/) stays.
	r := get("/trace/7?step=1&token="+ts.Token(), nil)
	if loc, _ := r.Location(); r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "7?step=1" || loc.RequestURI() != "/trace/7?step=1" {
		t.Fatalf("page with token: %d to %s", r.StatusCode, r.Header.Get("Location"))
	}
	if r := get("/?token="+ts.Token(), nil); r.Header.Get("Location") != "./" {
		t.Errorf("home with token: to %s", r.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range r.Cookies() {
		if strings.HasPrefix(c.Name, "cmc_token_") {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", cookie)
	}
	r = get("/trace/7?step=1", cookie)
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'") {
		t.Errorf("page with cookie: %d, CSP %q", r.StatusCode, r.Header.Get("Content-Security-Policy"))
	}
	// The page names its assets relative to its own path, never from the host's /.
	for page, want := range map[string]string{"/": `src="./assets/app.js"`, "/trace/7": `src="../assets/app.js"`, "/compare/1/2": `src="../../assets/app.js"`} {
		req, _ := http.NewRequest("GET", ts.hs.URL+page, nil)
		req.AddCookie(cookie)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), want) || strings.Contains(string(b), `"/assets/`) {
			t.Errorf("%s names its script other than %s:\n%s", page, want, b)
		}
	}
	// The embedded bundle is there (webview/dist, built by npm run build in webview/).
	for _, f := range []string{"/assets/app.js", "/assets/app.css"} {
		if r := get(f, cookie); r.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", f, r.StatusCode)
		}
	}
	if r := get("/assets/index.html", cookie); r.StatusCode != http.StatusNotFound {
		t.Errorf("the page under assets: %d", r.StatusCode)
	}
	// Show over HTTP needs the token itself, not the cookie.
	post := func(u string, hdr string) int {
		req, _ := http.NewRequest("POST", ts.hs.URL+u, nil)
		req.AddCookie(cookie)
		if hdr != "" {
			req.Header.Set("X-CMC-Token", hdr)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post("/api/show?trace=7&step=1", ""); c != http.StatusUnauthorized {
		t.Errorf("show with the cookie only: %d", c)
	}
	if c := post("/api/show?trace=7&step=1", ts.Token()); c != http.StatusNoContent {
		t.Errorf("show with the token: %d", c)
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, "localhost:8080": true, "[::1]:0": true, "127.1.2.3:9": true,
		":8080": false, "0.0.0.0:0": false, "192.168.1.5:80": false, "example.com:80": false, "nonsense": false,
	} {
		if err := CheckLoopback(addr, false); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v", addr, err)
		}
	}
	if err := CheckLoopback("0.0.0.0:0", true); err != nil {
		t.Errorf("allowRemote: %v", err)
	}
}
