// The HTML of the CMC Views panel. The views bundle (webview/dist, copied to media/views) is the
// same page cmcdap's views server serves to a browser; in a webview it cannot find the server
// from its own location, so this page hands it the server's URL and token, as webview/src/main.ts
// reads them (the JSON first, then the body's attributes; it derives the websocket from the URL):
//
//   <script type="application/json" id="cmc-config">{"url": "...", "ws": "...", "token": "...", "host": "vscode"}</script>
//   <body data-cmc-url="..." data-cmc-token="...">
//
// and, for other readers (the bundle does not read it), the websocket on a meta tag:
//
//   <meta name="cmc-views" data-ws="ws://127.0.0.1:PORT/ws" data-token="...">
//
// The panel answers the page's {type: "cmc/ready"} with {type: "cmc/config", url, token}; a new
// session's server gets a new page (panel.ts renders again). The policy allows no inline script: scripts only from the extension's media, WebAssembly
// compilation (Graphviz), and connections only to the views server.

/** The views server as the cmc/views event gives it. */
export interface ViewsEndpoint {
  /** The URL a browser opens (token included). */
  url: string;
  token: string;
  /** http://host:port and ws://host:port, for connect-src. */
  httpOrigin: string;
  wsOrigin: string;
  /** The websocket the views talk over (ws://host:port/ws), without the token. */
  ws: string;
}

/** parseViewsUrl reads the views server's URL (with its token) from a cmc/views event body. */
export function parseViewsUrl(body: unknown): ViewsEndpoint | undefined {
  const b = (body ?? {}) as { url?: unknown; token?: unknown };
  if (typeof b.url !== 'string') return undefined;
  let u: URL;
  try {
    u = new URL(b.url);
  } catch {
    return undefined;
  }
  const secure = u.protocol === 'https:' || u.protocol === 'wss:';
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) return undefined;
  const fromHash = new URLSearchParams(u.hash.replace(/^#/, '')).get('token');
  const token = typeof b.token === 'string' ? b.token : (u.searchParams.get('token') ?? fromHash ?? '');
  return {
    url: b.url,
    token,
    httpOrigin: `${secure ? 'https' : 'http'}://${u.host}`,
    wsOrigin: `${secure ? 'wss' : 'ws'}://${u.host}`,
    ws: `${secure ? 'wss' : 'ws'}://${u.host}/ws`,
  };
}

/**
 * browserUrl is the views page a browser opens: external is the server's origin as the browser
 * can reach it (vscode.env.asExternalUri of httpOrigin: itself on the desktop, a forwarded port or
 * code-server's proxy otherwise), and the token goes on as the views server reads it, ?token=...
 * The string is built here, not by vscode.Uri, whose toString escapes the "=" of a query and so
 * loses the token.
 */
export function browserUrl(v: ViewsEndpoint, external: string): string {
  const base = external.replace(/[?#].*$/, '').replace(/\/?$/, '/');
  return `${base}?token=${encodeURIComponent(v.token)}`;
}

export interface PanelPage {
  /** media/views/index.html of the bundle, if the extension has one. */
  indexHtml?: string;
  /** The webview URI of media/views/, ending in "/". */
  assetBase: string;
  /** webview.cspSource */
  cspSource: string;
  views?: ViewsEndpoint;
  /** Whether a cmc debug session runs (it may not have announced a views server). */
  session?: boolean;
  /** Scripts of the extension to run before the bundle's (webview URIs), e.g. the relay. */
  prelude?: string[];
  /**
   * The session the panel showed has ended: the page says so (its views server is gone, so the
   * bundle would only retry) and offers to open the trace it showed, if it was stored.
   */
  ended?: { trace?: number };
}

export function contentSecurityPolicy(cspSource: string, views?: ViewsEndpoint): string {
  const connect = views ? `${views.httpOrigin} ${views.wsOrigin} ${cspSource}` : cspSource;
  return [
    "default-src 'none'",
    `script-src ${cspSource} 'wasm-unsafe-eval'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data: blob:`,
    `font-src ${cspSource} data:`,
    `worker-src ${cspSource} blob:`,
    `connect-src ${connect}`,
  ].join('; ');
}

/** Escapes text for an HTML attribute value or text node. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON that is safe inside a <script> element: no "</script>" or "<!--" can appear. */
export function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * assetRef maps a src or href of the bundle's page into media/views: the views server serves the
 * bundle's files under /assets/, so "/assets/x.js", "assets/x.js", "./x.js" and "x.js" all name
 * dist/x.js. Other URLs (with a scheme, protocol-relative, fragments) are left alone.
 */
export function assetRef(ref: string, assetBase: string): string {
  if (/^([a-z][a-z0-9+.-]*:|\/\/|#|\{)/i.test(ref) || ref === '') return ref;
  return assetBase + ref.replace(/^\.?\//, '').replace(/^assets\//, '');
}

/**
 * panelHtml returns the panel page: the bundle's index.html with its relative src and href
 * attributes pointing into media/views, the policy and the config added, or a placeholder that
 * says what is missing.
 */
export function panelHtml(p: PanelPage): string {
  const csp = `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(p.cspSource, p.views))}">`;
  const v = p.views;
  const config =
    (v ? `<meta name="cmc-views" data-ws="${escapeHtml(v.ws)}" data-token="${escapeHtml(v.token)}">\n` : '') +
    `<script type="application/json" id="cmc-config">${scriptJson({ url: v?.url ?? '', ws: v?.ws ?? '', token: v?.token ?? '', host: 'vscode' })}</script>` +
    (p.prelude ?? []).map((src) => `\n<script src="${escapeHtml(src)}"></script>`).join('');
  const dataAttrs = ` data-cmc-url="${escapeHtml(p.views?.url ?? '')}" data-cmc-token="${escapeHtml(p.views?.token ?? '')}"`;
  if (p.indexHtml === undefined || !v || p.ended) return placeholder(csp, config, dataAttrs, p);

  let html = p.indexHtml.replace(/<meta[^>]+http-equiv=["']?content-security-policy["']?[^>]*>/gi, '');
  html = html.replace(/(<(?:script|link|img|source)\b[^>]*?\s(?:src|href)=)(["'])([^"']*)\2/gi, (_all, pre: string, q: string, ref: string) => `${pre}${q}${assetRef(ref, p.assetBase)}${q}`);
  const head = /<head\b[^>]*>/i.exec(html);
  if (head) {
    const at = head.index + head[0].length;
    html = html.slice(0, at) + '\n' + csp + '\n' + config + html.slice(at);
  } else {
    html = `<head>${csp}${config}</head>` + html;
  }
  if (/<body\b/i.test(html)) html = html.replace(/<body\b/i, `<body${dataAttrs}`);
  return html;
}

function placeholder(csp: string, config: string, dataAttrs: string, p: PanelPage): string {
  let why: string;
  if (p.ended) {
    const t = p.ended.trace;
    why = '<p>The debug session has ended, and with it the views server.</p>' +
      (t !== undefined
        ? `<p><a href="command:cmc.openTrace?${escapeHtml(encodeURIComponent(JSON.stringify([t])))}">Open trace #${t}</a> to step through it again.</p>`
        : '<p>Start a <code>cmc</code> debug session to see the views again.</p>');
  } else if (!p.views && !p.session) {
    why = '<p>Start a <code>cmc</code> debug session: the views show the heap graph, diff and message chart of the step the debugger is stopped on.</p>';
  } else if (!p.views) {
    why = '<p>This cmcdap announced no views server (no <code>cmc/views</code> event): update cmcdap.</p>';
  } else {
    why = '<p>This build of the extension has no views bundle (media/views is empty: the package step copies webview/dist there). ' +
      'The views run in a browser too: <a href="command:cmc.openViewsInBrowser">open them in a browser</a>.</p>';
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
${csp}
${config}
<meta charset="utf-8">
<title>CMC Views</title>
</head>
<body${dataAttrs}>
<h2>CMC Views</h2>
${why}
</body>
</html>`;
}
