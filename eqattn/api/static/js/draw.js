// SVG drawings: heads as dots, clusters as rounded boxes around dots, orbits as labelled frames.

const NS = "http://www.w3.org/2000/svg";
const R = 4.5;        // dot radius
const PITCH = 13;     // dot spacing
const CPAD = 2;       // cluster padding
const GAP = 4;        // between clusters
const OPAD = 5;       // orbit frame padding
const LABEL_H = 15;   // orbit label line
const OGAP = 6;       // between orbits

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

function textWidth(s, px = 11) {
  return Math.ceil(s.length * px * 0.6) + 2;
}

// One orbit G/K with `index` clusters of `n` heads each, laid out within maxW.
function layoutOrbit(index, n, label, maxW) {
  const inner = Math.max(maxW - 2 * OPAD, PITCH + 2 * CPAD);
  const perRow = Math.max(1, Math.min(n, Math.floor((inner - 2 * CPAD) / PITCH)));
  const rows = Math.ceil(n / perRow);
  const cw = perRow * PITCH + 2 * CPAD;
  const ch = rows * PITCH + 2 * CPAD;
  const clusters = [];
  let x = 0, y = 0, rowW = 0;
  for (let c = 0; c < index; c++) {
    if (x > 0 && x + cw > inner) { x = 0; y += ch + GAP; }
    clusters.push({ x, y, w: cw, h: ch, n, perRow });
    x += cw + GAP;
    rowW = Math.max(rowW, x - GAP);
  }
  const contentH = y + ch;
  const w = Math.min(maxW, Math.max(rowW, textWidth(label)) + 2 * OPAD);
  return { w, h: LABEL_H + contentH + 2 * OPAD - 2, clusters };
}

function orbitLabel(o, subgroups) {
  const sub = subgroups.get(o.subgroup);
  const name = o.name ?? sub?.name ?? `K${o.subgroup}`;
  const type = sub?.type;
  return { main: `G/${name}`, type: type && type !== name && !name.startsWith(type + ".") ? `K≅${type}` : "" };
}

// The SVG of one clustering: its H heads, grouped into clusters, grouped into orbits.
export function clusteringSvg(clustering, width, subgroups) {
  const frames = [];
  for (const o of clustering.orbits) {
    const lab = orbitLabel(o, subgroups);
    const text = lab.main + (lab.type ? " " + lab.type : "") + (o.degenerate ? " ⚠" : "");
    for (let c = 0; c < (o.count || 1); c++) {
      frames.push({ o, lab, text, ...layoutOrbit(o.index, o.cluster_size, text, width) });
    }
  }
  // flow the orbit frames
  let x = 0, y = 0, rowH = 0;
  for (const f of frames) {
    if (x > 0 && x + f.w > width) { x = 0; y += rowH + OGAP; rowH = 0; }
    f.x = x; f.y = y;
    x += f.w + OGAP;
    rowH = Math.max(rowH, f.h);
  }
  const height = y + rowH + 1;
  const svg = el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  for (const f of frames) {
    const g = el("g", { transform: `translate(${f.x + 0.5},${f.y + 0.5})` }, svg);
    const t = el("title", {}, g);
    const sub = subgroups.get(f.o.subgroup);
    t.textContent = `orbit ${f.lab.main}: ${f.o.index} cluster${f.o.index > 1 ? "s" : ""} of ` +
      `${f.o.cluster_size} head${f.o.cluster_size > 1 ? "s" : ""}; stabiliser K = ${f.o.name ?? sub?.name}` +
      `${sub ? ` (${sub.type}, order ${sub.order})` : ""}` +
      (f.o.degenerate ? "; degenerate: clusters of this orbit can be forced to share their QK matrix" : "");
    el("rect", { x: 0, y: 0, width: f.w - 1, height: f.h - 1, rx: 4, class: "orbit-frame" + (f.o.degenerate ? " degenerate" : "") }, g);
    const label = el("text", { x: OPAD, y: OPAD + 9, class: "orbit-text" + (f.o.degenerate ? " degenerate" : "") }, g);
    label.textContent = f.lab.main;
    if (f.lab.type) {
      const ts = el("tspan", { class: "typ", dx: 4 }, label);
      ts.textContent = f.lab.type;
    }
    if (f.o.degenerate) {
      const ts = el("tspan", { dx: 4 }, label);
      ts.textContent = "⚠";
    }
    for (const c of f.clusters) {
      const cx = OPAD + c.x, cy = OPAD + LABEL_H - 2 + c.y;
      el("rect", { x: cx, y: cy, width: c.w, height: c.h, rx: Math.min(7, c.h / 2), class: "cluster" }, g);
      for (let k = 0; k < c.n; k++) {
        const col = k % c.perRow, row = Math.floor(k / c.perRow);
        el("circle", { cx: cx + CPAD + PITCH / 2 + col * PITCH, cy: cy + CPAD + PITCH / 2 + row * PITCH, r: R, class: "dot" }, g);
      }
    }
  }
  return svg;
}

// The |G/K| heads of a design orbit, as a row of dots (wrapping).
export function orbitDotsSvg(count, maxW = 150) {
  const perRow = Math.max(1, Math.floor(maxW / PITCH));
  const shown = Math.min(count, perRow * 4);
  const rows = Math.ceil(shown / perRow);
  const w = Math.min(count, perRow) * PITCH + 2;
  const h = rows * PITCH + 2;
  const svg = el("svg", { width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img" });
  el("title", {}, svg).textContent = `${count} head${count > 1 ? "s" : ""}, one per coset of K`;
  for (let k = 0; k < shown; k++) {
    el("circle", { cx: 1 + PITCH / 2 + (k % perRow) * PITCH, cy: 1 + PITCH / 2 + Math.floor(k / perRow) * PITCH, r: R, class: "dot" }, svg);
  }
  return svg;
}
