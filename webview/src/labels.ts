// Labels keeps the boxes of the texts drawn so far in a chart, so the next label can go where it
// overlaps none of them. Text widths come from a canvas in the page's font: the same glyphs the
// SVG draws.

// A Box is a rectangle in the drawing's coordinates: left, top, right, bottom.
export interface Box {
  l: number;
  t: number;
  r: number;
  b: number;
}

const PAD = 1.5; // room kept around each label

const BAND = 32; // px: boxes are kept by the bands of height they cross, to look up few

export class Labels {
  private taken = new Map<number, Box[]>();
  private ctx = document.createElement("canvas").getContext("2d");

  constructor(private family: string) {}

  // width is the width of text at size px.
  width(text: string, size: number): number {
    if (!this.ctx) return text.length * size * 0.62;
    this.ctx.font = `${size}px ${this.family}`;
    return this.ctx.measureText(text).width;
  }

  // box is where text at size px, with its baseline at y and anchored at x, is drawn: the line's
  // height is the font's size and a fifth, most of it above the baseline.
  box(text: string, size: number, x: number, y: number, anchor: "start" | "middle" | "end"): Box {
    const w = this.width(text, size);
    const l = anchor === "start" ? x : anchor === "middle" ? x - w / 2 : x - w;
    return { l: l - PAD, t: y - size * 0.95 - PAD, r: l + w + PAD, b: y + size * 0.25 + PAD };
  }

  hits(b: Box): boolean {
    for (let i = Math.floor(b.t / BAND); i <= Math.floor(b.b / BAND); i++) {
      if (this.taken.get(i)?.some((o) => b.l < o.r && o.l < b.r && b.t < o.b && o.t < b.b)) return true;
    }
    return false;
  }

  take(b: Box) {
    for (let i = Math.floor(b.t / BAND); i <= Math.floor(b.b / BAND); i++) {
      const band = this.taken.get(i);
      if (band) band.push(b);
      else this.taken.set(i, [b]);
    }
  }
}
