/** Pix Automático's route names (what a fault targets) and OAuth2 scopes, as the OpenAPI names them. */
export const recRouteNames = [
  "locrec.post",
  "locrec.list",
  "locrec.get",
  "locrec.unlink",
  "rec.post",
  "rec.list",
  "rec.get",
  "rec.patch",
  "solicrec.post",
  "solicrec.get",
  "solicrec.patch",
  "cobr.put",
  "cobr.post",
  "cobr.list",
  "cobr.get",
  "cobr.patch",
  "cobr.retentativa",
  "webhookrec.put",
  "webhookrec.get",
  "webhookrec.delete",
  "webhookcobr.put",
  "webhookcobr.get",
  "webhookcobr.delete"
] as const

export const recScopes = [
  "payloadlocationrec.write",
  "payloadlocationrec.read",
  "rec.write",
  "rec.read",
  "solicrec.write",
  "solicrec.read",
  "cobr.write",
  "cobr.read",
  "webhookrec.write",
  "webhookrec.read",
  "webhookcobr.write",
  "webhookcobr.read"
] as const
