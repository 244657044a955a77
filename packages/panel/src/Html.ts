/** HTML as escaped text: `html` escapes every interpolated value unless it is already `Html`. */

/** Markup that is safe to insert as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

const escapes: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;"
}

/** Escapes text for element content and quoted attributes. */
export const escapeText = (value: string): string => value.replace(/[&<>"']/g, (c) => escapes[c] ?? c)

/** A value in a template: text (escaped), markup, lists of either, or nothing. */
export type Part = Html | string | number | null | undefined | false | ReadonlyArray<Part>

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return ""
  if (part instanceof Html) return part.text
  if (Array.isArray(part)) return part.map(render).join("")
  return escapeText(String(part))
}

/** The tagged template. */
export const html = (strings: TemplateStringsArray, ...parts: ReadonlyArray<Part>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < parts.length; i++) out += render(parts[i] as Part) + (strings[i + 1] ?? "")
  return new Html(out)
}

/** Trusted markup (constants of this package only). */
export const raw = (text: string): Html => new Html(text)
