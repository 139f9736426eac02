// The JSON API (eqattn/api/app.py). Every number the page shows comes from here.

export class ApiError extends Error {
  // status: HTTP status (0 for network errors); items: [{field, msg}] for 422s.
  constructor(status, message, items = []) {
    super(message);
    this.status = status;
    this.items = items;
  }
}

function fieldOf(item) {
  if (item.field) return item.field;
  const loc = Array.isArray(item.loc) ? item.loc.slice() : [];
  if (["body", "query", "path"].includes(loc[0])) loc.shift();
  let out = "";
  for (const p of loc) out += typeof p === "number" ? `[${p}]` : (out ? "." : "") + p;
  return out || "request";
}

async function call(method, path, body, signal) {
  let resp;
  try {
    resp = await fetch(path, {
      method,
      signal,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, "Cannot reach the server: is `eqattn serve` running?");
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { if (e.name === "AbortError") throw e; }
  if (resp.ok) return data;
  if (resp.status === 422 && data && Array.isArray(data.detail)) {
    const items = data.detail.map((d) => ({ field: fieldOf(d), msg: String(d.msg || "invalid value") }));
    throw new ApiError(422, items.map((i) => `${i.field}: ${i.msg}`).join("; "), items);
  }
  const detail = data && typeof data.detail === "string" ? data.detail : `${resp.status} ${resp.statusText}`;
  throw new ApiError(resp.status, `Server error: ${detail}`);
}

export const api = {
  features: (signal) => call("GET", "/api/features", undefined, signal),
  catalog: (signal) => call("GET", "/api/catalog", undefined, signal),
  group: (name, signal) => call("GET", `/api/group?name=${encodeURIComponent(name)}`, undefined, signal),
  clusterings: (problem, signal) => call("POST", "/api/clusterings", problem, signal),
  design: (body, signal) => call("POST", "/api/design", body, signal),
  coverage: (body, signal) => call("POST", "/api/coverage", body, signal),
  optimize: (body, signal) => call("POST", "/api/optimize", body, signal),
};
