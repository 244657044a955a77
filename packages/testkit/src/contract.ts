/**
 * Every answer the tests receive from a real Pixgate, held against the OpenAPI document: its
 * status documented for the method and path (a method the path lacks: on the path's other
 * operations, as the 405 and 410 are), its body valid against the documented schema of its
 * media type (ajv), and each of its headers documented with a value that fits. The shared
 * senders (`support/harness.ts`, `examples/test/support.ts`) call `check`; what it finds goes to
 * `findings.ts`, and the setup file `contract.setup.ts` fails the test file that received an
 * undocumented answer, listing them.
 *
 * The documents are the ones Pixgate serves (the public API's, and the admin API's for paths
 * under `/admin/`), built once per test process by an in-process Pixgate with no extra request
 * to the server under test (its logs and rate limits stay the test's own). Validators are
 * compiled once per document and schema. Answers that are not Pixgate's (no `x-request-id`, as
 * a host's own 404), and paths outside both APIs (the panel's pages), are not checked.
 */
import { MemoryStore } from "@pixgate/core"
import { Pixgate } from "@pixgate/http"
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import * as Findings from "./findings.js"

/** What `check` reads of an answer. */
export interface Received {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

type Json = { readonly [k: string]: unknown }

interface Operation {
  readonly responses: Readonly<Record<string, Json>>
}

/**
 * Headers of HTTP itself, which a document describes none of (message framing, caching, content
 * negotiation, the browser protections of HTML pages), and a host framework's own (Express's).
 */
const plumbing = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-type",
  "date",
  "cache-control",
  "etag",
  "vary",
  "content-security-policy",
  "x-content-type-options",
  "referrer-policy",
  "x-frame-options",
  "cross-origin-opener-policy",
  "cross-origin-resource-policy",
  "x-powered-by"
])

const pointer = (...tokens: ReadonlyArray<string>): string =>
  tokens.map((t) => `/${t.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")

/** One document: its path templates and its validators, compiled on first use. */
class Document {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true })
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly templates: ReadonlyArray<readonly [RegExp, string]>

  constructor(readonly doc: Json) {
    addFormats.default(this.ajv)
    this.ajv.addSchema(doc, "doc")
    this.templates = Object.keys(doc.paths as Json).map(
      (t) => [new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`), t] as const
    )
  }

  template(path: string): string | undefined {
    return this.templates.find(([re]) => re.test(path))?.[1]
  }

  operations(template: string): Readonly<Record<string, Operation>> {
    return (this.doc.paths as Record<string, Record<string, Operation>>)[template]
  }

  /** Problems of `value` against the schema at `at` (a JSON pointer into the document). */
  validate(at: string, value: unknown): Array<string> {
    let check = this.compiled.get(at)
    if (check === undefined) {
      check = this.ajv.getSchema(`doc#${at}`)
      if (check === undefined) return [`no schema at ${at}`]
      this.compiled.set(at, check)
    }
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`)
  }
}

let documents: Promise<{ readonly api: Document; readonly admin: Document }> | undefined

const token = "contract-check-admin-token-0123456789"

/** The public and admin documents, as a default Pixgate serves them (`servers` is `/`). */
const load = () => {
  documents ??= (async () => {
    const pixgate = await Pixgate.make({ store: MemoryStore.layer, log: { level: "none" }, admin: { token } })
    try {
      const api = await (await pixgate.webHandler(new Request("http://x/api/openapi.json"))).json()
      const admin = pixgate.admin
      if (admin === undefined) throw new Error("the admin API is configured above")
      const adminAnswer = await admin.webHandler(
        new Request("http://x/openapi.json", { headers: { authorization: `Bearer ${token}` } })
      )
      return { api: new Document(api), admin: new Document(await adminAnswer.json()) }
    } finally {
      await pixgate.dispose()
    }
  })()
  return documents
}

/**
 * Where a URL's path is in the APIs: the admin API's part after `/admin`, or the public API's
 * from `/api` (or `/v1`, the removed paths), so that a mount prefix (`/payments`) drops out.
 */
const locate = (pathname: string): { readonly api: "api" | "admin"; readonly path: string } | undefined => {
  const admin = pathname.indexOf("/admin/")
  if (admin !== -1) return { api: "admin", path: pathname.slice(admin + "/admin".length) }
  const match = /\/(api|v1)(\/|$)/.exec(pathname)
  return match === null ? undefined : { api: "api", path: pathname.slice(match.index) }
}

/**
 * The documented response of `status` in `responses`: exact, or its range (`4XX`). Not `default`:
 * generated clients type only the statuses a document names, so every answer a test sees must be
 * named (the HTTP server's own 400, 408 and 431, which `default` covers, carry no request id).
 */
const responseKey = (responses: Readonly<Record<string, Json>>, status: number): string | undefined =>
  [String(status), `${String(status)[0]}XX`].find((k) => responses[k] !== undefined)

/** Holds one answer against the document; anything undocumented is kept for the report. */
export const check = async (url: string, method: string, answer: Received): Promise<void> => {
  if (!answer.headers.has("x-request-id")) return
  // As the router reads a path: duplicate slashes collapse, one trailing slash is dropped.
  const where = locate(new URL(url).pathname.replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1"))
  if (where === undefined) return
  const docs = await load()
  const document = docs[where.api]
  const problems = problemsOf(document, where.path, method.toUpperCase(), answer)
  for (const p of problems) Findings.add(`${method.toUpperCase()} ${where.path} -> ${answer.status}: ${p}`)
}

const problemsOf = (document: Document, path: string, method: string, answer: Received): Array<string> => {
  const template = document.template(path)
  const errorSchema = pointer("components", "schemas", "Error")
  if (template === undefined) {
    // A path the document does not know: the router's 404, whose body is the documented Error.
    if (answer.status !== 404) return [`${path} is not in the document`]
    if (method === "HEAD") return []
    return document.validate(errorSchema, parse(answer.text)).map((p) => `body (Error): ${p}`)
  }
  const operations = document.operations(template)
  const own = method === "HEAD" ? "get" : method.toLowerCase()
  // A method the path lacks is answered (405, or 410 on a removed path) as its operations say.
  const candidates = operations[own] === undefined ? Object.keys(operations) : [own]
  const reports = candidates.map((name) => {
    const responses = operations[name].responses
    const key = responseKey(responses, answer.status)
    if (key === undefined)
      return [`status ${answer.status} not documented for ${name.toUpperCase()} ${template}`]
    const at = pointer("paths", template, name, "responses", key)
    return [
      ...bodyProblems(document, at, responses[key], method, answer),
      ...headerProblems(document, at, responses[key], answer)
    ]
  })
  // Documented if any candidate operation documents it fully.
  return reports.find((r) => r.length === 0) ?? reports[0] ?? []
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const bodyProblems = (
  document: Document,
  at: string,
  response: Json,
  method: string,
  answer: Received
): Array<string> => {
  if (method === "HEAD" || answer.status === 204 || answer.status === 304) return []
  const content = response.content as Record<string, Json> | undefined
  if (answer.text === "") return []
  if (content === undefined) return [`a body where the document says none`]
  const type = (answer.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase()
  if (content[type] === undefined)
    return [`media type ${type} not documented (${Object.keys(content).join(", ")})`]
  if (content[type].schema === undefined) return []
  const value = type.endsWith("json") ? parse(answer.text) : answer.text
  return document.validate(pointer(...pathOf(at), "content", type, "schema"), value).map((p) => `body: ${p}`)
}

const pathOf = (at: string): Array<string> =>
  at
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))

const headerProblems = (document: Document, at: string, response: Json, answer: Received): Array<string> => {
  const documented = new Map(
    Object.keys((response.headers ?? {}) as Json).map((name) => [name.toLowerCase(), name])
  )
  const problems: Array<string> = []
  answer.headers.forEach((value, name) => {
    if (plumbing.has(name)) return
    const documentedName = documented.get(name)
    if (documentedName === undefined) {
      problems.push(`header ${name} not documented`)
      return
    }
    const headerAt = pointer(...pathOf(at), "headers", documentedName, "schema")
    const headers = response.headers as Record<string, Json>
    const type = (headers[documentedName].schema as Json | undefined)?.type
    const typed = type === "integer" || type === "number" ? Number(value) : value
    for (const p of document.validate(headerAt, typed)) problems.push(`header ${name}: ${p}`)
  })
  for (const [lower, name] of documented)
    if ((response.headers as Record<string, Json>)[name].required === true && !answer.headers.has(lower))
      problems.push(`required header ${name} missing`)
  return problems
}
