// Small DOM helpers shared by every module of the page.

export const $ = (id) => document.getElementById(id);

// h("button", {class: "x", onclick: f, text: "Go"}, child, ...)
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function fmt(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : "–";
}

export function plural(n, word, many = word + "s") {
  return `${n} ${n === 1 ? word : many}`;
}

// Scientific notation for small errors: 3.2e-15.
export function sci(x) {
  return typeof x === "number" ? (x === 0 ? "0" : x.toExponential(1)) : "–";
}

// A download of `text` named `name`.
export function download(name, text, type) {
  const blob = new Blob([text], { type });
  const a = h("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// An elapsed-time progress line with a Cancel button; returns stop().
export function startProgress(id, label, controller, limitS = null) {
  const box = $(id);
  const text = box.querySelector(".progress-text");
  const bar = box.querySelector(".progress-bar");
  const t0 = performance.now();
  box.hidden = false;
  const tick = () => {
    const s = (performance.now() - t0) / 1000;
    text.textContent = `${label}… ${s.toFixed(1)} s` + (limitS ? ` of ${limitS} s` : "");
    if (bar && limitS) bar.style.width = `${Math.min(100, (100 * s) / limitS)}%`;
  };
  tick();
  const timer = setInterval(tick, 100);
  box.querySelector(".cancel").onclick = () => controller.abort();
  return () => { clearInterval(timer); box.hidden = true; if (bar) bar.style.width = "0"; };
}

// Re-render without taking the keyboard away: the focused input is found again after
// `render()` by its aria-label (the page's controls each have a unique one) and gets the
// focus and its caret back, so typing goes on where it was.
export function keepingFocus(render) {
  const el = document.activeElement;
  const label = el && el !== document.body ? el.getAttribute("aria-label") : null;
  let caret = null;
  try { caret = label && typeof el.selectionStart === "number" ? [el.selectionStart, el.selectionEnd] : null; } catch { caret = null; }
  render();
  if (!label || document.activeElement === el && el.isConnected) return;
  const again = document.querySelector(`[aria-label="${CSS.escape(label)}"]`);
  if (!again) return;
  again.focus();
  try { if (caret) again.setSelectionRange(caret[0], caret[1]); } catch { /* number inputs have no selection */ }
}
