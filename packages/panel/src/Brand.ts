/**
 * White-label options of a platform that embeds the panel: its product name, logo, primary
 * colour and support link, checked once when the panel is made (a bad option is a `TypeError` at
 * start-up, never a broken page).
 *
 * The colour becomes a small style sheet served by the panel itself (the Content-Security-Policy
 * allows no inline style): buttons in the colour with the text colour of better contrast, links
 * in the colour darkened until they reach 4.5:1 on white (WCAG AA), so any brand colour stays
 * readable.
 */

/** What a platform may set. */
export interface BrandOptions {
  /** The product's name, in place of "Painel Pixgate" in the header and the page titles (<= 60 characters). */
  readonly productName?: string
  /**
   * The logo: an `https:` URL (its origin is added to the policy's `img-src`), a path on the
   * same host (`/static/logo.png`), or an inline SVG document (`<svg ...>...</svg>`, <= 64 KiB),
   * which the panel serves itself at `<basePath>/assets/logo.svg`.
   */
  readonly logo?: string
  /** The primary colour: `#rgb`, `#rrggbb`, `rgb(r g b)`/`rgb(r, g, b)` or `hsl(h s% l%)`/`hsl(h, s%, l%)`. */
  readonly primaryColor?: string
  /** Where merchants get help: an `https:` URL or a `mailto:` address, linked from every page. */
  readonly supportUrl?: string
}

/** The options checked and resolved. */
export interface Brand {
  readonly productName: string | undefined
  /** The `src` of the logo, or undefined without one. */
  readonly logoSrc: string | undefined
  /** An inline SVG logo to serve, when that is what was given. */
  readonly logoSvg: string | undefined
  /** An origin to allow in `img-src` (an absolute logo URL's). */
  readonly imageOrigin: string | undefined
  readonly supportUrl: string | undefined
  /** The colour style sheet, empty without a colour. */
  readonly css: string
  /** The colour as given (normalized to lower case), for tests and documentation. */
  readonly primaryColor: string | undefined
}

type Rgb = readonly [number, number, number]

const clampByte = (n: number) => Math.min(255, Math.max(0, Math.round(n)))

const number = "([+-]?(?:\\d+\\.?\\d*|\\.\\d+))"
const rgbPattern = new RegExp(
  `^rgba?\\(\\s*${number}(%?)\\s*(?:,\\s*|\\s+)${number}(%?)\\s*(?:,\\s*|\\s+)${number}(%?)\\s*\\)$`
)
const hslPattern = new RegExp(
  `^hsla?\\(\\s*${number}(?:deg)?\\s*(?:,\\s*|\\s+)${number}%\\s*(?:,\\s*|\\s+)${number}%\\s*\\)$`
)

const hslToRgb = (h: number, s: number, l: number): Rgb => {
  const hue = (((h % 360) + 360) % 360) / 360
  const sat = Math.min(1, Math.max(0, s / 100))
  const light = Math.min(1, Math.max(0, l / 100))
  const q = light < 0.5 ? light * (1 + sat) : light + sat - light * sat
  const p = 2 * light - q
  const channel = (t0: number) => {
    const t = t0 < 0 ? t0 + 1 : t0 > 1 ? t0 - 1 : t0
    if (t < 1 / 6) return p + (q - p) * 6 * t
    if (t < 1 / 2) return q
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6
    return p
  }
  return [
    clampByte(channel(hue + 1 / 3) * 255),
    clampByte(channel(hue) * 255),
    clampByte(channel(hue - 1 / 3) * 255)
  ]
}

/**
 * An opaque CSS colour in hex, `rgb()` or `hsl()` notation as its red, green and blue bytes;
 * undefined for anything else (named colours, `var()`, transparency, text that is no colour).
 */
export const parseColor = (text: string): Rgb | undefined => {
  const c = text.trim().toLowerCase()
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(c)
  if (hex !== null) {
    const h = hex[1] ?? ""
    const full = h.length === 3 ? [...h].map((d) => d + d).join("") : h
    return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as unknown as Rgb
  }
  const rgb = rgbPattern.exec(c)
  if (rgb !== null) {
    const percents = [rgb[2], rgb[4], rgb[6]]
    if (new Set(percents).size !== 1) return undefined
    const values = [rgb[1], rgb[3], rgb[5]].map(Number)
    if (values.some((v) => v < 0 || v > (percents[0] === "%" ? 100 : 255))) return undefined
    return values.map((v) => clampByte(percents[0] === "%" ? (v * 255) / 100 : v)) as unknown as Rgb
  }
  const hsl = hslPattern.exec(c)
  if (hsl !== null) {
    const [h, s, l] = [hsl[1], hsl[2], hsl[3]].map(Number) as [number, number, number]
    if (s < 0 || s > 100 || l < 0 || l > 100) return undefined
    return hslToRgb(h, s, l)
  }
  return undefined
}

const luminance = ([r, g, b]: Rgb): number => {
  const lin = (v: number) => {
    const x = v / 255
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export const contrast = (a: Rgb, b: Rgb): number => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number]
  return (x + 0.05) / (y + 0.05)
}

const hexOf = (c: Rgb) => `#${c.map((v) => v.toString(16).padStart(2, "0")).join("")}`
const white: Rgb = [255, 255, 255]
const ink: Rgb = [0x1b, 0x1f, 0x24]

/** The colour darkened step by step until it reaches `ratio` against white. */
const readableOnWhite = (c: Rgb, ratio = 4.5): Rgb => {
  let out = c
  for (let i = 0; i < 100 && contrast(out, white) < ratio; i++)
    out = out.map((v) => clampByte(v * 0.95)) as unknown as Rgb
  return out
}

/** The style sheet of a primary colour: buttons, links, focus rings and the current-page marker. */
export const colorCss = (color: Rgb): string => {
  const onAccent = contrast(color, white) >= contrast(color, ink) ? white : ink
  const link = readableOnWhite(color)
  return `:root{--accent:${hexOf(link)};--brand:${hexOf(color)};--on-brand:${hexOf(onAccent)}}
button,.button{background:var(--brand);border-color:var(--brand);color:var(--on-brand)}
button.secondary,.button.secondary{background:#fff;color:var(--accent);border-color:var(--accent)}
button.danger{color:#fff}
header.top{border-bottom:4px solid var(--brand)}
`
}

const maxSvg = 64 * 1024

const fail = (what: string): never => {
  throw new TypeError(`Pixgate panel: ${what}`)
}

const httpsUrl = (text: string): URL | undefined => {
  try {
    const url = new URL(text)
    return url.protocol === "https:" && url.username === "" && url.password === "" ? url : undefined
  } catch {
    return undefined
  }
}

/** Checks and resolves the options; throws a `TypeError` naming the bad one. */
export const make = (options: BrandOptions | undefined, base: string): Brand => {
  const o = options ?? {}
  let productName: string | undefined
  if (o.productName !== undefined) {
    productName = o.productName.trim()
    if (productName === "" || productName.length > 60 || /\p{Cc}/u.test(productName))
      fail("brand.productName must be 1 to 60 printable characters")
  }
  let logoSrc: string | undefined
  let logoSvg: string | undefined
  let imageOrigin: string | undefined
  if (o.logo !== undefined) {
    const logo = o.logo.trim()
    if (/^<svg[\s>]/i.test(logo)) {
      if (logo.length > maxSvg) fail("brand.logo: an inline SVG must be at most 64 KiB")
      if (!/<\/svg>\s*$/i.test(logo)) fail("brand.logo: an inline SVG must end with </svg>")
      logoSvg = logo
      logoSrc = `${base}/assets/logo.svg`
    } else if (/^\/(?![/\\])[^\s"'<>\\]*$/.test(logo)) {
      logoSrc = logo
    } else {
      const url = httpsUrl(logo)
      if (url === undefined)
        fail("brand.logo must be an https: URL, a path starting with /, or an inline <svg>")
      logoSrc = url?.href
      imageOrigin = url?.origin
    }
  }
  let supportUrl: string | undefined
  if (o.supportUrl !== undefined) {
    const text = o.supportUrl.trim()
    const ok =
      httpsUrl(text) !== undefined ||
      /^mailto:[^\s@"'<>]+@[^\s@"'<>]+$/.test(text) ||
      /^\/(?![/\\])[^\s"'<>\\]*$/.test(text)
    if (!ok) fail("brand.supportUrl must be an https: URL, a mailto: address or a path starting with /")
    supportUrl = text
  }
  let css = ""
  let primaryColor: string | undefined
  if (o.primaryColor !== undefined) {
    const rgb = parseColor(o.primaryColor)
    if (rgb === undefined)
      fail(
        `brand.primaryColor ${JSON.stringify(o.primaryColor)} is not a CSS colour in #hex, rgb() or hsl() notation`
      )
    else {
      css = colorCss(rgb)
      primaryColor = o.primaryColor.trim().toLowerCase()
    }
  }
  return { productName, logoSrc, logoSvg, imageOrigin, supportUrl, css, primaryColor }
}

/** No white-label options: the panel's own look. */
export const none: Brand = make(undefined, "")
