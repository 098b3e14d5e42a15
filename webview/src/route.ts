// Where the page is: a trace and a step, from the address, or two traces compared. Standalone
// pages use paths (/trace/12?step=5, /compare/3/7: links to share); a VS Code webview has no
// paths and uses the fragment (#/trace/12/step/5, #/compare/3/7), which standalone pages read too.

// root is the address the server's paths start from: where the page's own script is, one level
// up (its assets/ directory). It is the server's / when the page is opened directly and, behind a
// proxy that serves it under a path (code-server's /proxy/PORT/), that path; every address the
// page makes (links, the history, the websocket) starts from it, never from the host's /.
export const root: URL = pageRoot();

function pageRoot(): URL {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  try {
    if (src && /^https?:/.test(src)) return new URL("../", src);
  } catch {
    // fall back to the host's root
  }
  return new URL("/", location.href);
}

// rest is the page's path after root: "trace/12" for /proxy/8123/trace/12.
function rest(loc: Location): string {
  return loc.pathname.startsWith(root.pathname) ? loc.pathname.slice(root.pathname.length) : loc.pathname.replace(/^\//, "");
}

export interface Place {
  trace: number;
  step: number;
}

export function parse(loc: Location): Place | null {
  const hm = /^#\/trace\/(\d+)(?:\/step\/(\d+))?/.exec(loc.hash);
  if (hm) return { trace: Number(hm[1]), step: Number(hm[2] ?? 0) };
  const pm = /^trace\/(\d+)\/?$/.exec(rest(loc));
  if (pm) {
    const step = Number(new URLSearchParams(loc.search).get("step") ?? 0);
    return { trace: Number(pm[1]), step: Number.isFinite(step) && step >= 0 ? step : 0 };
  }
  return null;
}

// parseCompare reads a comparison of two traces: /compare/3/7, or #/compare/3/7 in a webview.
export function parseCompare(loc: Location): { a: number; b: number } | null {
  const m = /^#\/compare\/(\d+)\/(\d+)/.exec(loc.hash) ?? /^compare\/(\d+)\/(\d+)\/?$/.exec(rest(loc));
  return m ? { a: Number(m[1]), b: Number(m[2]) } : null;
}

function usesPaths(): boolean {
  return location.protocol === "http:" || location.protocol === "https:";
}

// href is the address of a place (for links), in the page's style.
export function href(p: Place | null): string {
  if (!usesPaths()) return p ? `#/trace/${p.trace}/step/${p.step}` : "#/";
  return p ? `${root.pathname}trace/${p.trace}?step=${p.step}` : root.pathname;
}

// go records a place in the history without reloading.
export function go(p: Place | null, replace = false) {
  const url = href(p);
  if (!usesPaths()) {
    if (location.hash !== url) location.hash = url;
    return;
  }
  if (location.pathname + location.search === url && !location.hash) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}
