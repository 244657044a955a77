/**
 * A readable HTML page of an OpenAPI document: every operation with its parameters, body and
 * responses, the webhooks Pixgate sends, and every schema as a field table. Static and self-contained (no scripts, no CDN).
 */
import type { Document } from "./OpenApi.js"

type Json = { readonly [k: string]: unknown }

const html = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const refName = (schema: Json): string | undefined =>
  typeof schema.$ref === "string" ? schema.$ref.split("/").pop() : undefined

/** A schema in one line: `string | null`, `array of Transaction`, a link to a component. */
const typeOf = (schema: Json): string => {
  const name = refName(schema)
  if (name !== undefined) return `<a href="#schema-${html(name)}">${html(name)}</a>`
  if (schema.const !== undefined) return `<code>${html(JSON.stringify(schema.const))}</code>`
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `<code>${html(String(v))}</code>`).join(" | ")
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "any")
  if (schema.type === "array" && schema.items) return `array of ${typeOf(schema.items as Json)}`
  return html(type)
}

const constraints = (schema: Json): string =>
  ["minimum", "maximum", "maxLength", "pattern", "format"]
    .filter((k) => schema[k] !== undefined)
    .map((k) => `${k}: ${html(String(schema[k]))}`)
    .join(", ")

const fieldTable = (schema: Json): string => {
  const name = refName(schema)
  if (name !== undefined) return `<p>Body: ${typeOf(schema)}</p>`
  const properties = (schema.properties ?? {}) as Record<string, Json>
  const required = new Set((schema.required ?? []) as ReadonlyArray<string>)
  const rows = Object.entries(properties).map(
    ([field, s]) =>
      `<tr><td><code>${html(field)}</code></td><td>${typeOf(s)}</td><td>${required.has(field) ? "yes" : "no"}</td>` +
      `<td>${html(String(s.description ?? ""))} ${constraints(s)}</td></tr>`
  )
  return `<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${rows.join("")}</table>`
}

const operation = (method: string, path: string, op: Json): string => {
  const parameters = (op.parameters ?? []) as ReadonlyArray<Json>
  const security = (op.security ?? []) as ReadonlyArray<Json>
  const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, r]) => {
    const content = Object.values((r.content ?? {}) as Record<string, Json>)[0]
    const headers = Object.keys((r.headers ?? {}) as Json).map((h) => ` (header <code>${html(h)}</code>)`)
    return `<li><b>${html(status)}</b> ${html(String(r.description))}${headers.join("")}${content ? `: ${typeOf(content.schema as Json)}` : ""}</li>`
  })
  return [
    `<section class="op"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${html(path)}</code></h3>`,
    `<p><b>${html(String(op.summary))}</b></p>`,
    op.description ? `<p>${html(String(op.description))}</p>` : "",
    `<p>Auth: ${security.length === 0 ? "none" : security.map((s) => html(Object.keys(s)[0]!)).join(", ")}</p>`,
    parameters.length === 0
      ? ""
      : `<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Description</th></tr>${parameters
          .map(
            (p) =>
              `<tr><td><code>${html(String(p.name))}</code></td><td>${html(String(p.in))}</td>` +
              `<td>${typeOf(p.schema as Json)}</td><td>${html(String(p.description ?? ""))}</td></tr>`
          )
          .join("")}</table>`,
    body
      ? `<h4>Request body (application/json)</h4>${fieldTable(body["application/json"]!.schema as Json)}`
      : "",
    `<h4>Responses</h4><ul>${responses.join("")}</ul></section>`
  ].join("\n")
}

const style = `body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
code{background:#f3f3f3;padding:0 .2em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
.op{border-top:1px solid #ccc;margin-top:1.5em}.m{color:#fff;padding:.1em .4em;border-radius:3px;font-size:.8em}
.get{background:#2f7d32}.post{background:#1565c0}.put{background:#8e24aa}.patch{background:#6d4c41}.delete{background:#c62828}`

/** The HTML page of `doc`; `specUrl` links to the JSON document. */
export const render = (doc: Document, specUrl: string): string => {
  const info = doc.info as Json
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>
  const ops = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => operation(method, path, op))
  )
  const webhooks = Object.entries((doc.webhooks ?? {}) as Record<string, Record<string, Json>>).flatMap(
    ([name, methods]) => Object.entries(methods).map(([method, op]) => operation(method, name, op))
  )
  const components = Object.entries(schemas).map(
    ([name, schema]) =>
      `<section id="schema-${html(name)}"><h3>${html(name)}</h3>${fieldTable(schema)}</section>`
  )
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(String(info.title))}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${style}</style></head><body>
<h1>${html(String(info.title))} <small>${html(String(info.version))}</small></h1>
<p>${html(String(info.description ?? ""))}</p><p>OpenAPI 3.1 document: <a href="${html(specUrl)}">${html(specUrl)}</a></p>
<h2>Operations</h2>${ops.join("\n")}${
    webhooks.length === 0
      ? ""
      : `<h2>Webhooks</h2><p>Requests Pixgate sends to the merchant's webhook URL, by event.</p>${webhooks.join("\n")}`
  }<h2>Schemas</h2>${components.join("\n")}</body></html>`
}
