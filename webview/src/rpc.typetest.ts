// Checked by `npm run check`, never bundled: what the generated request types (types.gen.ts, from
// the Go server's views.Ops) refuse. Each line below must be a type error.

import type { Rpc } from "./rpc";

export function refused(rpc: Rpc) {
  const p = { trace: 1, step: 2 };
  // @ts-expect-error an op the server does not have
  rpc.call("stepp", p);
  // @ts-expect-error a misspelt argument
  rpc.call("heap", { ...p, grpah: {} });
  // @ts-expect-error an argument of the wrong type
  rpc.call("trace", { trace: "1" });
  // @ts-expect-error a missing argument
  rpc.call("diff", { trace: 1 });
}
