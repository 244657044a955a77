/**
 * The panel answers each error with the contract's status: the table `@pixgate/http` declares
 * (`Status.all`), handed to the panel by its embedder (`Panel.make(runtime, options, statuses)`).
 * Made here as a host makes it: the Node entry of `@pixgate/http` with the panel mounted.
 */
import { MemoryStore } from "@pixgate/core"
import { Status } from "@pixgate/http"
import { Pixgate } from "@pixgate/http/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelStatus from "../src/Status.js"

let embedded: Pixgate.Pixgate | undefined
beforeAll(async () => {
  embedded = await Pixgate.make({ store: MemoryStore.layer, log: { level: "none" }, panel: {} })
})
afterAll(() => embedded?.dispose())

/** An error of the class `tag`, as the panel meets it. */
const errorOf = (tag: string): Error => Object.assign(new Error(tag), { _tag: tag })

describe("the panel's error statuses", () => {
  it("are the contract's, class by class", () => {
    expect(Status.all.size).toBeGreaterThan(10)
    for (const [tag, status] of Status.all) {
      expect([tag, PanelStatus.statusOf(errorOf(tag))]).toEqual([tag, status])
    }
  })

  it("its own body-too-large is 413, and anything else 500", () => {
    expect(PanelStatus.statusOf(new PanelStatus.PayloadTooLarge())).toBe(413)
    expect(PanelStatus.statusOf(new Error("x"))).toBe(500)
  })
})
