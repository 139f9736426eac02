// SVG drawings: heads as dots, clusters as rounded boxes around dots, orbits as labelled frames;
// under each orbit of several clusters, how G's generators permute its clusters (numbered 1..n,
// the cosets of K: the server's coset_action), e.g. "a: (1 2)".

const NS = "http://www.w3.org/2000/svg";
const R = 4.5;        // dot radius
const PITCH = 13;     // dot spacing
const CPAD = 2;       // cluster padding
const GAP = 4;        // between clusters
const OPAD = 5;       // orbit frame padding
const LABEL_H = 15;   // orbit label line
const OGAP = 6;       // between orbits
const ACT_H = 13;     // one line of a generator's action on the clusters

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

function textWidth(s, px = 11) {
  return Math.ceil(s.length * px * 0.6) + 2;
}

// A permutation of 0..n-1 (images) in cycle notation on 1..n, fixed points left out.
export function cycleText(images) {
  const seen = new Array(images.length).fill(false);
  let out = "";
  for (let i = 0; i < images.length; i++) {
    if (seen[i] || images[i] === i) { seen[i] = true; continue; }
    const cyc = [];
    for (let j = i; !seen[j]; j = images[j]) { seen[j] = true; cyc.push(j + 1); }
    out += `(${cyc.join(" ")})`;
  }
  return out || "fixes each";
}

// How each generator of G permutes the clusters of an orbit G/K: [{letter, text, title}].
function actionLines(sub, generators) {
  if (!sub || !sub.coset_action || sub.index < 2) return [];
  return sub.coset_action.map((images, s) => {
    const gen = generators?.[s];
    const letter = gen?.letter ?? String.fromCharCode(97 + s);
    const text = `${letter}: ${cycleText(images)}`;
    return { text, title: `${letter}${gen?.description ? ` (${gen.description})` : ""} sends cluster i to cluster j: ${cycleText(images)}` };
  });
}

// One orbit G/K with `index` clusters of `n` heads each, laid out within maxW.
function layoutOrbit(index, n, label, maxW, lines = []) {
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
  const textW = Math.max(textWidth(label), ...lines.map((l) => textWidth(l.text, 10)));
  const w = Math.min(maxW, Math.max(rowW, textW) + 2 * OPAD);
  return { w, h: LABEL_H + contentH + 2 * OPAD - 2 + lines.length * ACT_H, clusters, contentH };
}

function orbitLabel(o, subgroups) {
  const sub = subgroups.get(o.subgroup);
  const name = o.name ?? sub?.name ?? `K${o.subgroup}`;
  const type = sub?.type;
  return { main: `G/${name}`, type: type && type !== name && !name.startsWith(type + ".") ? `K≅${type}` : "" };
}

// The SVG of one clustering: its H heads, grouped into clusters, grouped into orbits.
export function clusteringSvg(clustering, width, subgroups, generators = []) {
  const frames = [];
  for (const o of clustering.orbits) {
    const lab = orbitLabel(o, subgroups);
    const text = lab.main + (lab.type ? " " + lab.type : "") + (o.degenerate ? " ⚠" : "");
    const lines = actionLines(subgroups.get(o.subgroup), generators);
    for (let c = 0; c < (o.count || 1); c++) {
      frames.push({ o, lab, text, lines, ...layoutOrbit(o.index, o.cluster_size, text, width, lines) });
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
    const numbered = f.lines.length > 0;
    f.clusters.forEach((c, ci) => {
      const cx = OPAD + c.x, cy = OPAD + LABEL_H - 2 + c.y;
      el("rect", { x: cx, y: cy, width: c.w, height: c.h, rx: Math.min(7, c.h / 2), class: "cluster" }, g);
      for (let k = 0; k < c.n; k++) {
        const col = k % c.perRow, row = Math.floor(k / c.perRow);
        el("circle", { cx: cx + CPAD + PITCH / 2 + col * PITCH, cy: cy + CPAD + PITCH / 2 + row * PITCH, r: R, class: "dot" }, g);
      }
      if (numbered) {  // the cluster's number, inside its first dot
        const t = el("text", { x: cx + CPAD + PITCH / 2, y: cy + CPAD + PITCH / 2 + 3, class: "cluster-num", "text-anchor": "middle" }, g);
        t.textContent = String(ci + 1);
      }
    });
    f.lines.forEach((line, li) => {
      const lg = el("g", {}, g);
      el("title", {}, lg).textContent = line.title;
      const t = el("text", { x: OPAD, y: OPAD + LABEL_H - 2 + f.contentH + 11 + li * ACT_H, class: "action-text" }, lg);
      const maxChars = Math.floor((f.w - 2 * OPAD) / 6);
      t.textContent = line.text.length > maxChars ? line.text.slice(0, Math.max(4, maxChars - 1)) + "…" : line.text;
    });
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
