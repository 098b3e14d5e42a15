// Builds the views bundle into dist/ (committed, so `go build` needs no npm):
// dist/app.js (src/main.ts and @viz-js/viz, one script, no eval), app.css and index.html.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "iife",
  target: ["chrome110"],
  minify: true,
  legalComments: "eof",
  outfile: "dist/app.js",
  logLevel: "warning",
});
copyFileSync("src/app.css", "dist/app.css");
copyFileSync("src/index.html", "dist/index.html");
