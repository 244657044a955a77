// `@pixgate/client` as a web app would ship it: bundled by esbuild for the browser
// (`platform: "browser"`). The client needs the contract and the schemas only; what it must never
// pull in: Node's built-in modules (esbuild refuses them for the browser), `fs`, `pngjs` or
// `qrcode`, and core's QR writer (QrMatrix, QrImage). Used by scripts/check-packages.mjs on the
// installed packages and by packages/client/test/browserBundle.test.ts on the sources.

/** Files whose code must not reach a browser bundle of the client. */
const forbidden = [
  /(^|\/)node_modules\/(pngjs|qrcode)\//,
  /(^|\/)Qr(Matrix|Image)\.(ts|js)$/,
  /^node:|^(fs|path|os|crypto|zlib|http|https|net|tls|stream|child_process)$/
]

/**
 * Bundles `source` (module text importing the client) from `resolveDir`; answers the bundle's
 * size, the files with code in it, and the problems: a failed build, or forbidden files included.
 */
export const browserBundle = async (
  esbuild,
  { resolveDir, source = 'export * from "@pixgate/client"', conditions = [] }
) => {
  let result
  try {
    result = await esbuild.build({
      stdin: { contents: source, resolveDir, loader: "ts" },
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      conditions,
      logLevel: "silent"
    })
  } catch (error) {
    const messages = (error.errors ?? [{ text: String(error) }]).map(
      (e) => `${e.text}${e.location ? ` (${e.location.file})` : ""}`
    )
    return { bytes: 0, included: [], problems: messages.map((m) => `the browser build failed: ${m}`) }
  }
  const [output] = Object.values(result.metafile.outputs)
  const included = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path)
  const problems = included
    .filter((path) => forbidden.some((pattern) => pattern.test(path)))
    .map((path) => `the browser bundle includes ${path}`)
  return { bytes: result.outputFiles[0].contents.length, included, problems }
}
