import { describe, expect, it } from "@effect/vitest"
import { PanelRoles } from "@pixgate/core"

describe("PanelRoles", () => {
  it("gives each role exactly its actions", () => {
    const table = Object.fromEntries(
      PanelRoles.panelRoles.map((role) => [role, PanelRoles.actions.filter((a) => PanelRoles.can(role, a))])
    )
    expect(table).toEqual({
      owner: [...PanelRoles.actions],
      finance: ["read", "charge.create", "payout.create", "refund.create"],
      developer: ["read", "charge.create", "key.manage", "webhook.manage"],
      viewer: ["read"]
    })
  })

  it("lets no role but the owner read the audit log or manage users", () => {
    for (const role of ["finance", "developer", "viewer"] as const) {
      expect(PanelRoles.can(role, "audit.read")).toBe(false)
      expect(PanelRoles.can(role, "users.manage")).toBe(false)
    }
  })

  it("asks for the second factor on live money and access, not on reads", () => {
    expect([...PanelRoles.needsSecondFactorLive].sort()).toEqual(
      ["key.manage", "payout.create", "refund.create", "webhook.manage"].sort()
    )
    expect(PanelRoles.needsSecondFactorLive.has("read")).toBe(false)
  })

  it("knows its roles", () => {
    expect(PanelRoles.isPanelRole("finance")).toBe(true)
    expect(PanelRoles.isPanelRole("admin")).toBe(false)
    expect(PanelRoles.isPanelRole(undefined)).toBe(false)
  })
})
