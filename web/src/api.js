// The server's JSON answers. Every text from the repository stays a string
// here and is set with textContent by the pages, never as HTML.

export async function api(path, params = {}, { signal } = {}) {
  const query = new URLSearchParams(
    Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""),
  );
  const url = query.toString() ? `${path}?${query}` : path;
  const response = await fetch(url, { credentials: "same-origin", signal });
  // The server answered from the index as it was, while a refresh runs.
  const stale = document.getElementById("stale");
  if (stale) stale.textContent = response.headers.get("X-Evident-Stale") || "";
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

export function tool(name, args) {
  return api(`/api/tool/${encodeURIComponent(name)}`, { args: JSON.stringify(args) });
}
