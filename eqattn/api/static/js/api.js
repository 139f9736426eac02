// The JSON API (eqattn/api/app.py). Every number the page shows comes from here.

export class ApiError extends Error {
  // status: HTTP status (0 for network errors); items: [{field, msg}] from the API's error
  // model {field, message, errors: [{field, message}]} (eqattn/api/errors.py).
  constructor(status, message, items = []) {
    super(message);
    this.status = status;
    this.items = items;
  }
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
  if (resp.status === 422 && data && typeof data.field === "string") {
    const list = Array.isArray(data.errors) && data.errors.length ? data.errors : [data];
    const items = list.map((d) => ({ field: String(d.field || "request"), msg: String(d.message || "invalid value") }));
    throw new ApiError(422, items.map((i) => `${i.field}: ${i.msg}`).join("; "), items);
  }
  const detail = data && typeof data.message === "string" ? data.message : `${resp.status} ${resp.statusText}`;
  throw new ApiError(resp.status, `Server error: ${detail}`);
}

export const api = {
  catalog: (signal) => call("GET", "/api/catalog", undefined, signal),
  group: (name, signal) => call("GET", `/api/group?name=${encodeURIComponent(name)}`, undefined, signal),
  clusterings: (problem, signal) => call("POST", "/api/clusterings", problem, signal),
  design: (body, signal) => call("POST", "/api/design", body, signal),
  coverage: (body, signal) => call("POST", "/api/coverage", body, signal),
  optimize: (body, signal) => call("POST", "/api/optimize", body, signal),
};
