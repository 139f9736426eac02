// The JSON API (eqattn/api). Every number the page shows comes from here.

export class ApiError extends Error {
  // status: HTTP status (0 for network errors); items: [{field, msg}] for 4xx answers.
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

// The error items of an answer: {"detail": [{loc, msg, field}]} or {"field", "message", "errors"?}.
function itemsOf(data) {
  if (!data || typeof data !== "object") return [];
  if (Array.isArray(data.detail)) return data.detail.map((d) => ({ field: fieldOf(d), msg: String(d.msg || d.message || "invalid value") }));
  if (Array.isArray(data.errors) && data.errors.length) return data.errors.map((d) => ({ field: d.field || "request", msg: String(d.message || d.msg || "invalid value") }));
  if (typeof data.message === "string") return [{ field: data.field || "request", msg: data.message }];
  return [];
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
  const items = resp.status < 500 ? itemsOf(data) : [];
  if (items.length) throw new ApiError(resp.status, items.map((i) => `${i.field}: ${i.msg}`).join("; "), items);
  const detail = data && typeof data.detail === "string" ? data.detail
    : data && typeof data.message === "string" ? data.message : `${resp.status} ${resp.statusText}`;
  throw new ApiError(resp.status, `Server error: ${detail}`);
}

const q = encodeURIComponent;
export const api = {
  catalog: (signal) => call("GET", "/api/catalog", undefined, signal),
  // rep: a compact group comes at the band that V names (the server's catalog.group_for_rep)
  group: (name, signal, rep = null) => call("GET", `/api/group?name=${q(name)}${rep ? `&rep=${q(rep)}` : ""}`, undefined, signal),
  clusterings: (problem, signal) => call("POST", "/api/clusterings", problem, signal),
  design: (body, signal) => call("POST", "/api/design", body, signal),
  coverage: (body, signal) => call("POST", "/api/coverage", body, signal),
  coverageDetail: (body, signal) => call("POST", "/api/coverage/detail", body, signal),
  optimize: (body, signal) => call("POST", "/api/optimize", body, signal),
  front: (body, signal) => call("POST", "/api/front", body, signal),
  widening: (body, signal) => call("POST", "/api/widening", body, signal),
  partial: (body, signal) => call("POST", "/api/partial", body, signal),
  subgroup: (group, id, signal, rep = null) => call("GET", `/api/subgroup?group=${q(group)}&id=${id}${rep ? `&rep=${q(rep)}` : ""}`, undefined, signal),
  restrictions: (group, rep, signal) => call("GET", `/api/restrictions?group=${q(group)}&rep=${q(rep)}`, undefined, signal),
  characterTable: (group, signal) => call("GET", `/api/character-table?group=${q(group)}`, undefined, signal),
  witnesses: (body, signal) => call("POST", "/api/witnesses", body, signal),
  verify: (body, signal) => call("POST", "/api/verify", body, signal),
};
