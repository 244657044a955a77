/**
 * The docs page of an OpenAPI document: Scalar's API reference (operations, schemas, webhooks,
 * examples and a "Test Request" client that calls the same server), rendered in the browser
 * from the served document by Scalar's standalone bundle, which the package serves itself (no
 * CDN, no font or telemetry request: it works offline). The page's content security policy
 * allows exactly that. Without JavaScript, a static rendering of the same document shows
 * instead: every operation with its parameters, body and responses, the webhooks, and every
 * schema as a field table.
 *
 * The bundle (4.3 MB, generated into ScalarBundle.ts) is imported on the first request for it,
 * never at start-up, and needs no file system: the same on Node and on web hosts.
 *
 * Compression: lazily, once per process and encoding, at the first request that accepts it
 * (gzip level 9, brotli quality 5, with node:zlib's asynchronous calls, off the event loop),
 * then kept in memory (about 1.26 MB gzip, 1.09 MB brotli). Not precompressed at build: the
 * package would ship the bundle three times (as text, .gz and .br) instead of once, and tests
 * and the sources' own users would need a fallback for a missing or stale build. Brotli's best
 * quality (11) takes about 20 s for this bundle, quality 5 a quarter of a second for 16% more
 * bytes (the first visitor waits for it).
 * A host without node:zlib (reached through `process.getBuiltinModule`, not imported, so the
 * web entry stays free of Node built-ins) serves it uncompressed.
 *
 * Caching: the page names the renderer as `scalar.js?v=<hash>` (the bundle's SHA-256 and the
 * start line's hash), answered `Cache-Control: public, max-age=31536000, immutable`: a new
 * bundle or start line is a new URL. Without `v`, or with another one, it answers `no-cache`.
 */
import type { Document } from "./OpenApiDocuments.js"
import * as Respond from "./Respond.js"
import * as Digest from "./ScalarBundleDigest.js"

type Json = { readonly [k: string]: unknown }

const html = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c
  )

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
    `<p>Auth: ${security.length === 0 ? "none" : security.map((s) => html(Object.keys(s)[0])).join(", ")}</p>`,
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
      ? `<h4>Request body (application/json)</h4>${fieldTable(body["application/json"].schema as Json)}`
      : "",
    `<h4>Responses</h4><ul>${responses.join("")}</ul></section>`
  ].join("\n")
}

// Scoped to the static rendering, which shows only without JavaScript.
const style = `.static{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
.static code{background:#f3f3f3;padding:0 .2em}.static table{border-collapse:collapse;margin:.5em 0}.static td,.static th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
.static .op{border-top:1px solid #ccc;margin-top:1.5em}.static .m{color:#fff;padding:.1em .4em;border-radius:3px;font-size:.8em}
.static .get{background:#2f7d32}.static .post{background:#1565c0}.static .put{background:#8e24aa}.static .patch{background:#6d4c41}.static .delete{background:#c62828}`

/** The static rendering of `doc`, linking to the JSON document at `specUrl`. */
const staticPage = (doc: Document, specUrl: string): string => {
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
  return `<div class="static"><h1>${html(String(info.title))} <small>${html(String(info.version))}</small></h1>
<p>${html(String(info.description ?? ""))}</p><p>OpenAPI 3.1 document: <a href="${html(specUrl)}">${html(specUrl)}</a></p>
<h2>Operations</h2>${ops.join("\n")}${
    webhooks.length === 0
      ? ""
      : `<h2>Webhooks</h2><p>Requests Pixgate sends to the merchant's webhook URL, by event.</p>${webhooks.join("\n")}`
  }<h2>Schemas</h2>${components.join("\n")}</div>`
}

/** The renderer's path, under the docs page's own (`/api/docs`). */
export const rendererPath = "/api/docs/scalar.js"

/**
 * The page's content security policy: scripts from the server only (the renderer), styles the
 * renderer injects, its inline SVG icons (`data:`), and requests to the same origin only (the
 * document and the "Test Request" client). No frame may embed the page.
 */
export const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** Scalar's configuration: no request beyond the server (fonts, telemetry, agent, MCP). */
const configuration = (specUrl: string) => ({
  url: specUrl,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  defaultOpenAllTags: true,
  documentDownloadType: "json"
})

/**
 * The tags whose operations are all deprecated (the endpoints removed in 2.0.0): the page
 * starts with them collapsed, so they close the reference without filling it.
 */
export const collapsedTags = (doc: Document): ReadonlyArray<string> => {
  const all = new Map<string, boolean>()
  for (const item of Object.values(doc.paths as Json)) {
    for (const op of Object.values(item as Json)) {
      if (typeof op !== "object" || op === null || !Array.isArray((op as Json).tags)) continue
      for (const tag of (op as Json).tags as ReadonlyArray<string>)
        all.set(tag, (all.get(tag) ?? true) && (op as Json).deprecated === true)
    }
  }
  return [...all].filter(([, deprecated]) => deprecated).map(([tag]) => tag)
}

// Read by the line the renderer's answer ends with; JSON in HTML: `<` escaped.
const configurationElement = (doc: Document, specUrl: string) =>
  `<script type="application/json" id="pixgate-docs">${JSON.stringify({
    scalar: configuration(specUrl),
    collapsed: collapsedTags(doc)
  }).replace(/</g, "\\u003c")}</script>`

/**
 * Starts Scalar on the page with its configuration (run after the bundle, in the same file),
 * then closes the collapsed tags' groups in the sidebar (Scalar opens every tag and has no
 * per-tag setting; closing a group also folds its section), unless the address points at
 * something already. It waits up to 10 s for the sidebar to render.
 */
const start =
  '\n;(function(){var c=document.getElementById("pixgate-docs");if(!c)return;' +
  "var o=JSON.parse(c.textContent),target=location.hash;" +
  'Scalar.createApiReference("#pixgate-docs-app",o.scalar);' +
  "if(target)return;var left=o.collapsed,tries=0;(function close(){" +
  'var buttons=[].slice.call(document.querySelectorAll("button"));left=left.filter(function(t){' +
  'var b=buttons.find(function(b){return b.textContent.trim().slice(-(t.length+14))==="Close Group - "+t});' +
  "if(b){b.click();return false}return true});if(left.length&&++tries<100)setTimeout(close,100)})()})();\n"

/** FNV-1a, 32 bits, in hex: the start line's part of the renderer's hash (synchronous, tiny). */
const fnv1a = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16).padStart(8, "0")
}

/** The renderer's content hash: the bundle's (generated) and the start line's. */
export const rendererHash = `${Digest.digest}${fnv1a(start)}`

/** The renderer's URL under `root` (the mount path), with its hash: cached for a year. */
export const rendererUrl = (root: string): string => `${root}${rendererPath}?v=${rendererHash}`

/**
 * The docs page of `doc`: the document read from `specUrl`, the renderer from `rendererUrl`
 * (both under the mount path the document's `servers` names).
 */
export const render = (doc: Document, specUrl: string, rendererUrl: string): string => {
  const info = doc.info as Json
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(String(info.title))}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${style}</style></head><body>
<div id="pixgate-docs-app"></div>${configurationElement(doc, specUrl)}<script src="${html(rendererUrl)}"></script>
<noscript>${staticPage(doc, specUrl)}</noscript></body></html>`
}

/** The docs page as an answer, with its content security policy. */
export const page = (doc: Document, specUrl: string, rendererUrl: string): Respond.Answer =>
  new Respond.Answer(
    200,
    { "content-type": "text/html; charset=utf-8", "content-security-policy": contentSecurityPolicy },
    render(doc, specUrl, rendererUrl)
  )

type Encoding = "br" | "gzip" | "identity"

/** The encoding to answer with: brotli, else gzip, when `Accept-Encoding` allows it (q > 0). */
export const encodingOf = (acceptEncoding: string | undefined): Encoding => {
  const accepted = new Map<string, number>()
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";")
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    if (name) accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0)
  }
  const allows = (e: string) => (accepted.get(e) ?? accepted.get("*") ?? 0) > 0
  return allows("br") ? "br" : allows("gzip") ? "gzip" : "identity"
}

// The renderer's bytes by encoding, each made once (a failed compression is tried again later).
const bodies = new Map<Encoding, Promise<Uint8Array<ArrayBuffer> | undefined>>()

/**
 * node:zlib when the host has it, through `process.getBuiltinModule` (Node 20.16+, Deno, Bun):
 * not an import, so the web entry still imports no Node built-in.
 */
const zlibOf = (): typeof import("node:zlib") | undefined => {
  try {
    const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    return host?.getBuiltinModule?.("node:zlib") as typeof import("node:zlib") | undefined
  } catch {
    return undefined
  }
}

const compress = async (
  encoding: "br" | "gzip",
  bytes: Uint8Array<ArrayBuffer>
): Promise<Uint8Array<ArrayBuffer> | undefined> => {
  const zlib = zlibOf()
  if (zlib === undefined) return undefined
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, out: Buffer) => (error ? reject(error) : resolve(new Uint8Array(out)))
    if (encoding === "gzip") zlib.gzip(bytes, { level: 9 }, done)
    else
      zlib.brotliCompress(
        bytes,
        {
          params: {
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length
          }
        },
        done
      )
  })
}

/** The renderer's bytes in `encoding`, undefined when this host cannot compress. */
export const rendererBody = (encoding: Encoding): Promise<Uint8Array<ArrayBuffer> | undefined> => {
  let body = bodies.get(encoding)
  if (body === undefined) {
    body =
      encoding === "identity"
        ? import("./ScalarBundle.js").then((b) => new TextEncoder().encode(`${b.source}${start}`))
        : rendererBody("identity").then((bytes) => compress(encoding, bytes as Uint8Array<ArrayBuffer>))
    body.catch(() => bodies.delete(encoding))
    bodies.set(encoding, body)
  }
  return body
}

const immutable = "public, max-age=31536000, immutable"

/**
 * The renderer (Scalar's bundle, then the line that starts it), compressed as `Accept-Encoding`
 * allows (`Vary: Accept-Encoding`), or 304 when the client has it (`If-None-Match`). Under its
 * hashed URL (`v` is `rendererHash`) it is cached for a year; otherwise clients revalidate each
 * time (`no-cache`). The ETag names the hash and the encoding.
 */
export const renderer = async (request: {
  readonly v: string | undefined
  readonly ifNoneMatch: string | undefined
  readonly acceptEncoding: string | undefined
}): Promise<Respond.Answer> => {
  const wanted = encodingOf(request.acceptEncoding)
  const compressed = wanted === "identity" ? undefined : await rendererBody(wanted)
  const encoding = compressed === undefined ? "identity" : wanted
  const etag = `"scalar-${Digest.version}-${rendererHash}${encoding === "identity" ? "" : `-${encoding}`}"`
  const headers: Record<string, string> = {
    "cache-control": request.v === rendererHash ? immutable : "no-cache",
    etag,
    vary: "Accept-Encoding"
  }
  const tags = request.ifNoneMatch?.split(",").map((t) => t.trim().replace(/^W\//, ""))
  const base = etag.replace(/-(br|gzip)"$/, '"')
  if (tags?.some((t) => t === "*" || t.replace(/-(br|gzip)"$/, '"') === base))
    return new Respond.Answer(304, headers, "")
  if (encoding !== "identity") headers["content-encoding"] = encoding
  return new Respond.Answer(
    200,
    { ...headers, "content-type": "text/javascript; charset=utf-8" },
    compressed ?? ((await rendererBody("identity")) as Uint8Array<ArrayBuffer>)
  )
}
