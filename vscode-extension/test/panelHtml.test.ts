import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assetRef, browserUrl, contentSecurityPolicy, panelHtml, parseViewsUrl, scriptJson } from '../src/panelHtml';

const views = parseViewsUrl({ url: 'http://127.0.0.1:43121/?token=s3cret' })!;
const page = { assetBase: 'https://file+.vscode-resource.x/ext/media/views/', cspSource: 'https://file+.vscode-resource.x', views };

test('the views URL gives token and origins', () => {
  assert.deepEqual(views, { url: 'http://127.0.0.1:43121/?token=s3cret', token: 's3cret', httpOrigin: 'http://127.0.0.1:43121', wsOrigin: 'ws://127.0.0.1:43121', ws: 'ws://127.0.0.1:43121/ws' });
  assert.equal(parseViewsUrl({ url: 'http://127.0.0.1:1/#token=t' })!.token, 't');
  assert.equal(parseViewsUrl({ url: 'http://127.0.0.1:1/', token: 'given' })!.token, 'given');
  assert.equal(parseViewsUrl({ url: 'https://h:9/?token=x' })!.wsOrigin, 'wss://h:9');
  assert.equal(parseViewsUrl({ url: 'not a url' }), undefined);
  assert.equal(parseViewsUrl({ url: 'file:///etc/passwd' }), undefined);
  assert.equal(parseViewsUrl({}), undefined);
});

test('the policy allows no inline script and connects only to the views server', () => {
  const csp = contentSecurityPolicy(page.cspSource, views);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src https:\/\/file\+\.vscode-resource\.x 'wasm-unsafe-eval'(;|$)/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'|\*/);
  assert.match(csp, /connect-src http:\/\/127\.0\.0\.1:43121 ws:\/\/127\.0\.0\.1:43121 /);
});

test('the bundle\'s page gets the policy, the config and its assets from media/views', () => {
  const index = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src *"><link rel="stylesheet" href="/assets/views.css"><script type="module" src="views.js"></script><script src="https://cdn.example/x.js"></script></head><body class="x"><div id="app"></div></body></html>`;
  const html = panelHtml({ ...page, indexHtml: index });
  assert.equal((html.match(/Content-Security-Policy/g) ?? []).length, 1);
  assert.doesNotMatch(html, /default-src \*/);
  assert.match(html, /href="https:\/\/file\+\.vscode-resource\.x\/ext\/media\/views\/views\.css"/);
  assert.match(html, /src="https:\/\/file\+\.vscode-resource\.x\/ext\/media\/views\/views\.js"/);
  assert.match(html, /src="https:\/\/cdn\.example\/x\.js"/); // left alone (and blocked by the policy)
  assert.match(html, /<meta name="cmc-views" data-ws="ws:\/\/127\.0\.0\.1:43121\/ws" data-token="s3cret">/);
  assert.match(html, /<script type="application\/json" id="cmc-config">\{"url":"http:\/\/127\.0\.0\.1:43121\/\?token=s3cret","ws":"ws:\/\/127\.0\.0\.1:43121\/ws","token":"s3cret","host":"vscode"\}<\/script>/);
  assert.match(html, /<body data-cmc-url="http:\/\/127\.0\.0\.1:43121\/\?token=s3cret" data-cmc-token="s3cret" class="x">/);
  assert.ok(html.indexOf('cmc-config') < html.indexOf('views.js'), 'config comes before the scripts');
  assert.ok(html.indexOf('name="cmc-views"') < html.indexOf('views.js'), 'the meta tag comes before the scripts');
});

test('asset references map into media/views as the views server maps /assets/', () => {
  const b = 'B/';
  assert.equal(assetRef('/assets/views.js', b), 'B/views.js');
  assert.equal(assetRef('assets/views.js', b), 'B/views.js');
  assert.equal(assetRef('./views.css', b), 'B/views.css');
  assert.equal(assetRef('viz/viz.wasm', b), 'B/viz/viz.wasm');
  assert.equal(assetRef('https://x/y.js', b), 'https://x/y.js');
  assert.equal(assetRef('//x/y.js', b), '//x/y.js');
  assert.equal(assetRef('data:,x', b), 'data:,x');
  assert.equal(assetRef('#top', b), '#top');
});

test('prelude scripts (the relay) run before the bundle\'s', () => {
  const html = panelHtml({ ...page, prelude: ['https://file+.vscode-resource.x/ext/resources/ws-relay.js'], indexHtml: '<html><head><script src="/assets/app.js" defer></script></head><body></body></html>' });
  const relay = html.indexOf('<script src="https://file+.vscode-resource.x/ext/resources/ws-relay.js"></script>');
  assert.ok(relay > 0 && relay < html.indexOf('app.js'));
});

test('config JSON cannot close its script element', () => {
  assert.equal(scriptJson({ u: '</script><script>alert(1)</script>' }), '{"u":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"}');
  const v = parseViewsUrl({ url: 'http://127.0.0.1:1/?token=%22%3E%3C' })!;
  const html = panelHtml({ ...page, views: v, indexHtml: '<html><head></head><body></body></html>' });
  assert.match(html, /data-token="&quot;&gt;&lt;"/);
  assert.match(html, /data-cmc-token="&quot;&gt;&lt;"/);
});

test('without a bundle or a server the panel says what is missing', () => {
  const html = panelHtml({ ...page, session: true });
  assert.match(html, /no views bundle/);
  assert.match(html, /command:cmc\.openViewsInBrowser/);
  assert.doesNotMatch(html, /<script(?! type="application\/json")/);
  const index = '<html><head><script src="app.js"></script></head><body></body></html>';
  assert.match(panelHtml({ ...page, indexHtml: index, views: undefined }), /Start a <code>cmc<\/code> debug session/);
  assert.match(panelHtml({ ...page, indexHtml: index, views: undefined, session: true }), /no views server/);
  assert.doesNotMatch(panelHtml({ ...page, indexHtml: index, views: undefined, session: true }), /app\.js/);
});

test('the page a browser opens carries the token, on the desktop and through code-server\'s proxy', () => {
  const v = parseViewsUrl({ url: 'http://127.0.0.1:41234/?token=a1b2' })!;
  assert.equal(browserUrl(v, 'http://127.0.0.1:41234/'), 'http://127.0.0.1:41234/?token=a1b2');
  assert.equal(browserUrl(v, 'https://dev.example/proxy/41234'), 'https://dev.example/proxy/41234/?token=a1b2');
  // What asExternalUri gives may carry a query of its own; the page's is the token.
  assert.equal(browserUrl(v, 'https://41234-dev.example/?x=1'), 'https://41234-dev.example/?token=a1b2');
  const odd = parseViewsUrl({ url: 'http://127.0.0.1:1/', token: 'a+b=c' })!;
  assert.equal(new URL(browserUrl(odd, 'http://127.0.0.1:1/')).searchParams.get('token'), 'a+b=c');
});

test('when the session ends, the panel says so and offers to open its trace, instead of a page that retries', () => {
  const views = parseViewsUrl({ url: 'http://127.0.0.1:41234/?token=a1b2' })!;
  const index = '<!DOCTYPE html><html><head><script src="/assets/app.js"></script></head><body></body></html>';
  const html = panelHtml({ indexHtml: index, assetBase: 'vscode-resource:/m/', cspSource: 'vscode-resource:', views, session: true, ended: { trace: 7 } });
  assert.match(html, /The debug session has ended/);
  assert.match(html, /<a href="command:cmc\.openTrace\?%5B7%5D">Open trace #7<\/a>/);
  assert.doesNotMatch(html, /app\.js/, 'the bundle, which would retry the gone server, is not loaded');
  const noTrace = panelHtml({ indexHtml: index, assetBase: 'vscode-resource:/m/', cspSource: 'vscode-resource:', session: true, ended: {} });
  assert.match(noTrace, /The debug session has ended/);
  assert.doesNotMatch(noTrace, /cmc\.openTrace/);
});
