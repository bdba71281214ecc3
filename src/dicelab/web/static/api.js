// The API reference, drawn from /openapi.json on this server: no script from elsewhere,
// so it works without internet access.
"use strict";

const $ = (id) => document.getElementById(id);

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

// The little markdown the descriptions use, escaped first: `code`, **strong**,
// *emphasis*, [text](link), lists of "* " items and paragraphs.
function inline(text) {
  return esc(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|\s)\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label, href) =>
      (/^(https?:|\/)/.test(href) ? `<a href="${href}">${label}</a>` : label));
}

function md(text) {
  return String(text ?? "").split(/\n\s*\n/).map((block) => {
    const lines = block.split("\n");
    if (!/^\s*[*-] /.test(lines[0])) return inline(block);
    const items = [];
    for (const line of lines) {
      if (/^\s*[*-] /.test(line)) items.push(line.replace(/^\s*[*-] /, ""));
      else if (items.length) items[items.length - 1] += ` ${line.trim()}`;
    }
    return `</p><ul>${items.map((i) => `<li>${inline(i)}</li>`).join("")}</ul><p>`;
  }).join("</p><p>");
}

function resolve(spec, schema) {
  let s = schema || {};
  while (s.$ref) s = spec.components.schemas[s.$ref.split("/").pop()] || {};
  return s;
}

function typeOf(spec, schema) {
  const s = schema || {};
  if (s.$ref) return s.$ref.split("/").pop();
  if (s.anyOf) return s.anyOf.map((x) => typeOf(spec, x)).join(" or ");
  if (s.type === "array") return `list of ${typeOf(spec, s.items)}`;
  if (s.type === "object" && s.additionalProperties) {
    return `map to ${typeOf(spec, s.additionalProperties)}`;
  }
  let t = s.type || "any";
  const range = [];
  if (s.minimum !== undefined) range.push(`>= ${s.minimum}`);
  if (s.maximum !== undefined) range.push(`<= ${s.maximum}`);
  if (s.maxLength !== undefined) range.push(`at most ${s.maxLength} characters`);
  if (range.length) t += ` (${range.join(", ")})`;
  return t;
}

function fields(spec, schema) {
  const s = resolve(spec, schema);
  const props = s.properties || {};
  const required = new Set(s.required || []);
  const rows = Object.entries(props).map(([name, p]) => {
    const d = resolve(spec, p).description || p.description || "";
    return `<tr><td><code>${esc(name)}</code>${required.has(name) ? "" : " <em>optional</em>"}</td>`
      + `<td class="type">${esc(typeOf(spec, p))}</td><td>${md(d)}</td></tr>`;
  });
  return rows.length ? `<table><tbody>${rows.join("")}</tbody></table>` : "";
}

function endpoint(spec, path, method, op) {
  const parts = [`<h2><span class="method ${method}">${method.toUpperCase()}</span> ${esc(path)}</h2>`];
  parts.push(`<p>${esc(op.summary || "")}</p>`);
  if (op.description) parts.push(`<p class="muted">${md(op.description)}</p>`);
  const params = op.parameters || [];
  if (params.length) {
    parts.push("<h3>Parameters</h3><table><tbody>" + params.map((p) =>
      `<tr><td><code>${esc(p.name)}</code> (${esc(p.in)})</td>`
      + `<td class="type">${esc(typeOf(spec, p.schema))}</td><td>${md(p.description || "")}</td></tr>`,
    ).join("") + "</tbody></table>");
  }
  const body = op.requestBody && op.requestBody.content["application/json"];
  if (body) parts.push(`<h3>Request body (JSON)</h3>${fields(spec, body.schema)}`);
  for (const [status, res] of Object.entries(op.responses || {})) {
    const content = res.content && res.content["application/json"];
    const schema = content && content.schema;
    parts.push(`<h3>${esc(status)}: ${esc(res.description || "")}</h3>`);
    if (schema && status.startsWith("2")) parts.push(fields(spec, schema));
  }
  const section = document.createElement("section");
  section.className = "panel endpoint";
  section.id = `${method}-${path}`;
  section.innerHTML = parts.join("");
  return section;
}

async function start() {
  try {
    const spec = await (await fetch("/openapi.json")).json();
    $("intro").innerHTML = `<h2>${esc(spec.info.title)} ${esc(spec.info.version)}</h2>`
      + `<p>${md(spec.info.description || "")}</p>`;
    const list = $("endpoints");
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(ops)) list.appendChild(endpoint(spec, path, method, op));
    }
  } catch (err) {
    const box = $("error");
    box.textContent = `the API description could not be read: ${err.message}`;
    box.hidden = false;
  }
}

start();
