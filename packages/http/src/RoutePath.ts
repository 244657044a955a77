/**
 * Request paths as the route table matches them. The rules are those of find-my-way, the
 * router Pixgate used before, so every URL resolves as it always did: an absolute-form target
 * (`http://host/path`) counts by its path; the path ends at `?`, `;` or `#`; duplicate slashes
 * collapse and one trailing slash is dropped; percent-escapes are decoded, except those of
 * reserved characters (`%2F` stays `%2F` in the path and becomes `/` inside a parameter); a
 * malformed escape matches nothing. Letter case counts.
 */

/** A path ready to match, and whether its parameters hold reserved escapes to decode. */
export interface Canonical {
  readonly path: string
  readonly decodeParams: boolean
}

// The escapes decodeURI leaves alone (its reserved characters, and % itself).
const reserved = new Map([
  ["23", "#"],
  ["24", "$"],
  ["25", "%"],
  ["26", "&"],
  ["2B", "+"],
  ["2b", "+"],
  ["2C", ","],
  ["2c", ","],
  ["2F", "/"],
  ["2f", "/"],
  ["3A", ":"],
  ["3a", ":"],
  ["3B", ";"],
  ["3b", ";"],
  ["3D", "="],
  ["3d", "="],
  ["3F", "?"],
  ["3f", "?"],
  ["40", "@"]
])

const absolute = /^https?:\/\/.*?\//

const collapse = (path: string): string => (path.includes("//") ? path.replace(/\/\/+/g, "/") : path)

const trimSlash = (path: string): string =>
  path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.slice(0, -1) : path

/** A route's own path (router syntax) in matching form. */
export const ofRoute = (path: string): string => trimSlash(collapse(path))

/** The path of a request URL in matching form, or undefined when an escape is malformed. */
export const canonical = (url: string): Canonical | undefined => {
  let path = collapse(url.charCodeAt(0) === 47 ? url : url.replace(absolute, "/"))
  let decode = false
  let decodeParams = false
  for (let i = 1; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c === 37) {
      const hex = path.slice(i + 1, i + 3)
      if (!reserved.has(hex)) decode = true
      else {
        decodeParams = true
        // An escaped % is escaped once more, so decoding the path cannot decode what it hid.
        if (hex === "25") {
          decode = true
          path = `${path.slice(0, i + 1)}25${path.slice(i + 1)}`
          i += 2
        }
        i += 2
      }
    } else if (c === 63 || c === 59 || c === 35) {
      path = path.slice(0, i)
      break
    }
  }
  if (decode) {
    try {
      path = decodeURI(path)
    } catch {
      return undefined
    }
  }
  return { path: trimSlash(path), decodeParams }
}

/** A path parameter with its reserved escapes decoded. */
export const decodeParam = (segment: string): string =>
  segment.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => reserved.get(hex) ?? encoded)
