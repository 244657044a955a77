/**
 * No function above 80 lines in the packages' sources (`packages/*\/src/**\/*.ts`): a service is
 * split into named operations, each short enough to read at once, not one long closure.
 *
 * Every function-like node is measured by its line span, from its first token to its closing
 * brace: function declarations and expressions, arrow functions, methods, getters, setters and
 * constructors. A function's span includes the functions nested in it: a closure that holds its
 * operations as inner functions is as long as all of them together, so the way under the limit
 * is to move the operations out into named functions of their own. A generator passed to
 * `Effect.gen` (or `Effect.fn`) that is the whole body of an arrow function counts as that arrow
 * function (one entry, not two); otherwise it is a function of its own, named after what it
 * is assigned to (`const make = Effect.gen(function* () { ... })` is `make`).
 *
 * A function is named by the chain of named functions it sits in (`make.create`); a callback
 * without a name by its call (`it("lists charges")`, `Effect.forEach callback`).
 *
 * The exceptions are in scripts/function-length-exceptions.json, each with its reason: a
 * generated table, a schema or literal table, a big template literal (HTML, SQL), or
 * "pending split" for a function still to be split. An exception that no longer matches a
 * function above the limit fails the check too, so the list only shrinks.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import ts from "typescript"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const exceptionsFile = join(root, "scripts", "function-length-exceptions.json")
const maxLines = 80

const reasons = [
  "generated table",
  "schema or literal table",
  "template literal (HTML)",
  "template literal (SQL)",
  "pending split"
] as const

interface Exception {
  readonly file: string
  readonly function: string
  readonly reason: (typeof reasons)[number]
}

interface Long {
  readonly file: string
  readonly line: number
  readonly name: string
  readonly lines: number
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")
        ? [join(dir, entry.name)]
        : []
  )

/** Every `packages/*\/src/**\/*.ts`, relative to the repository's root, `/`-separated. */
const packageSources = (): ReadonlyArray<string> =>
  readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const src = join(root, "packages", entry.name, "src")
      try {
        return sourceFiles(src)
      } catch {
        return []
      }
    })
    .map((file) => relative(root, file).split("\\").join("/"))

type FunctionNode = ts.FunctionLikeDeclaration

const isFunction = (node: ts.Node): node is FunctionNode =>
  (ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isConstructorDeclaration(node)) &&
  node.body !== undefined

/** Whether a call is `Effect.gen(...)` or `Effect.fn(...)(...)`/`Effect.fn(...)`. */
const isEffectGen = (call: ts.CallExpression, sf: ts.SourceFile): boolean => {
  const callee = call.expression.getText(sf)
  return callee === "Effect.gen" || callee.startsWith("Effect.fn")
}

/** Wrappers a function expression passes through on its way to what names it. */
const isTransparent = (node: ts.Node): boolean =>
  ts.isParenthesizedExpression(node) ||
  ts.isAsExpression(node) ||
  ts.isSatisfiesExpression(node) ||
  ts.isNonNullExpression(node) ||
  ts.isTypeAssertionExpression(node) ||
  ts.isCallExpression(node) ||
  ts.isPropertyAccessExpression(node)

const propertyName = (name: ts.PropertyName | ts.BindingName, sf: ts.SourceFile): string =>
  ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)
    ? name.text
    : name.getText(sf)

/** A generator passed to `Effect.gen` that is the whole body of an arrow function. */
const isArrowBody = (node: FunctionNode, sf: ts.SourceFile): boolean => {
  if (!ts.isFunctionExpression(node) || node.asteriskToken === undefined) return false
  let up: ts.Node = node.parent
  if (!ts.isCallExpression(up) || !isEffectGen(up, sf)) return false
  while (isTransparent(up.parent) && !ts.isArrowFunction(up.parent)) up = up.parent
  return ts.isArrowFunction(up.parent) && up.parent.body === up
}

/** The function's own name, or undefined for an anonymous one. */
const ownName = (node: FunctionNode, sf: ts.SourceFile): string | undefined => {
  if (ts.isConstructorDeclaration(node)) return "constructor"
  if (node.name !== undefined) return propertyName(node.name, sf)
  let up: ts.Node = node
  while (isTransparent(up.parent)) up = up.parent
  const parent = up.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return propertyName(parent.name, sf)
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
    return parent.left.getText(sf)
  if (ts.isExportAssignment(parent)) return "default"
  return undefined
}

/** An anonymous callback's name: its call, with the call's first string argument. */
const callbackName = (node: FunctionNode, sf: ts.SourceFile): string => {
  const call = node.parent
  if (!ts.isCallExpression(call) && !ts.isNewExpression(call)) return "(anonymous)"
  const callee = `${ts.isNewExpression(call) ? "new " : ""}${call.expression.getText(sf).replace(/\s+/g, "")}`
  const label = call.arguments?.find(ts.isStringLiteralLike)
  return label === undefined ? `${callee} callback` : `${callee}(${JSON.stringify(label.text)})`
}

/** Every function above the limit in one source file. */
const longFunctions = (file: string): ReadonlyArray<Long> => {
  const sf = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<Long> = []
  const visit = (node: ts.Node, scope: ReadonlyArray<string>): void => {
    if (!isFunction(node)) {
      ts.forEachChild(node, (child) => visit(child, scope))
      return
    }
    if (isArrowBody(node, sf)) {
      ts.forEachChild(node, (child) => visit(child, scope))
      return
    }
    const name = [...scope, ownName(node, sf) ?? callbackName(node, sf)]
    const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
    const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line
    const lines = end - start + 1
    if (lines > maxLines) found.push({ file, line: start + 1, name: name.join("."), lines })
    ts.forEachChild(node, (child) => visit(child, name))
  }
  visit(sf, [])
  return found
}

const exceptions = JSON.parse(readFileSync(exceptionsFile, "utf8")) as ReadonlyArray<Exception>
const excepts = (long: Long) => (e: Exception) => e.file === long.file && e.function === long.name

describe("function length", () => {
  const long = packageSources().flatMap(longFunctions)

  it("reads every package's sources", () => {
    expect(packageSources().length).toBeGreaterThan(100)
  })

  it(`no function above ${maxLines} lines outside the exceptions`, () => {
    const unexcepted = long
      .filter((l) => !exceptions.some(excepts(l)))
      .map((l) => `${l.file}:${l.line} ${l.name} (${l.lines} lines)`)
    expect(unexcepted).toEqual([])
  })

  it("every exception names a function above the limit, with an allowed reason", () => {
    const stale = exceptions
      .filter((e) => !long.some((l) => excepts(l)(e)))
      .map((e) => `${e.file} ${e.function}`)
    expect(stale).toEqual([])
    const badReason = exceptions.filter((e) => !(reasons as ReadonlyArray<string>).includes(e.reason))
    expect(badReason).toEqual([])
  })
})
