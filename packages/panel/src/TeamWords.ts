/** The words of the team, notifications and "forgot password" pages, in both languages. */
import type { Lang } from "./I18n.js"

const ptBR = {
  team: "Equipe",
  notifications: "Notificações",
  member: "Usuário",
  role: "Papel",
  lastSignIn: "Último acesso",
  pendingInvite: "Convite pendente",
  never: "Nunca",
  you: "você",
  inviteTitle: "Convidar por e-mail",
  inviteEmail: "E-mail da pessoa",
  inviteRole: "Papel",
  inviteSend: "Enviar convite",
  inviteHint: "O convite vale por 72 horas e pode ser usado uma vez; a pessoa cria a própria senha.",
  inviteSent: "Convite enviado para {email}.",
  inviteNoMail:
    "O envio de e-mail não está configurado neste servidor (PIXGATE_SMTP_URL). Peça ao operador o link do convite (pixgate user invite).",
  inviteBadEmail: "Informe um e-mail válido.",
  inviteBadRole: "Escolha um papel.",
  inviteMember: "Este e-mail já acessa o painel.",
  inviteTaken: "Este e-mail já acessa o painel de outra empresa.",
  changeRole: "Mudar papel",
  changeRoleOf: "Novo papel de {email}",
  roleChanged: "Papel de {email} alterado.",
  remove: "Remover",
  removeOf: "Remover {email}",
  removeConfirm:
    "Remover {email} da equipe? As sessões dessa pessoa terminam agora e ela não entra mais no painel.",
  removed: "{email} foi removido da equipe.",
  self: "Você não pode mudar o próprio papel nem se remover.",
  notFound: "Usuário não encontrado.",
  cancel: "Cancelar",
  forgotLink: "Esqueci minha senha",
  forgotTitle: "Esqueci minha senha",
  forgotIntro: "Informe o e-mail com que você entra no painel. Enviaremos um link para criar uma nova senha.",
  forgotSend: "Enviar link",
  forgotDone:
    "Se este e-mail tiver acesso ao painel, enviamos um link para criar uma nova senha. Ele vale por 30 minutos. Confira também a caixa de spam.",
  backToSignIn: "Voltar para entrar",
  email: "E-mail",
  notificationsIntro: "Escolha o que você quer receber por e-mail.",
  notifyPix: "PIX recebido a partir de um valor",
  notifyPixMin: "Valor mínimo (R$)",
  notifyPixHint: "Deixe em branco para não receber.",
  notifyPayouts: "Saque concluído ou com falha",
  notifyWebhooks: "Endpoint de webhooks falhando",
  notifyInfractions: "Infração (MED) aberta, com o prazo",
  notifySave: "Salvar",
  notifySaved: "Preferências salvas.",
  notifyBadAmount: "Valor mínimo inválido: use reais, como 100 ou 100,50.",
  notifyNoMail:
    "O envio de e-mail não está configurado neste servidor: suas escolhas ficam guardadas, mas nada é enviado até o operador configurar o SMTP.",
  unavailable: "Indisponível neste armazenamento."
}

export type TeamWords = typeof ptBR

const en: TeamWords = {
  team: "Team",
  notifications: "Notifications",
  member: "User",
  role: "Role",
  lastSignIn: "Last sign-in",
  pendingInvite: "Invitation pending",
  never: "Never",
  you: "you",
  inviteTitle: "Invite by e-mail",
  inviteEmail: "Their e-mail",
  inviteRole: "Role",
  inviteSend: "Send invitation",
  inviteHint: "The invitation works once within 72 hours; the person sets their own password.",
  inviteSent: "Invitation sent to {email}.",
  inviteNoMail:
    "E-mail is not configured on this server (PIXGATE_SMTP_URL). Ask the operator for the invitation link (pixgate user invite).",
  inviteBadEmail: "Enter a valid e-mail address.",
  inviteBadRole: "Choose a role.",
  inviteMember: "This e-mail already signs in to the panel.",
  inviteTaken: "This e-mail already signs in to another business's panel.",
  changeRole: "Change role",
  changeRoleOf: "New role of {email}",
  roleChanged: "Role of {email} changed.",
  remove: "Remove",
  removeOf: "Remove {email}",
  removeConfirm: "Remove {email} from the team? Their sessions end now and they can no longer sign in.",
  removed: "{email} was removed from the team.",
  self: "You cannot change your own role or remove yourself.",
  notFound: "User not found.",
  cancel: "Cancel",
  forgotLink: "Forgot my password",
  forgotTitle: "Forgot my password",
  forgotIntro: "Enter the e-mail you sign in with. We will send a link to set a new password.",
  forgotSend: "Send link",
  forgotDone:
    "If this e-mail has access to the panel, we sent a link to set a new password. It works for 30 minutes. Check your spam folder too.",
  backToSignIn: "Back to sign-in",
  email: "E-mail",
  notificationsIntro: "Choose what you want to get by e-mail.",
  notifyPix: "PIX received from an amount",
  notifyPixMin: "Smallest amount (R$)",
  notifyPixHint: "Leave blank for none.",
  notifyPayouts: "Payout completed or failed",
  notifyWebhooks: "Webhook endpoint failing",
  notifyInfractions: "Infraction (MED) opened, with its deadline",
  notifySave: "Save",
  notifySaved: "Preferences saved.",
  notifyBadAmount: "Invalid smallest amount: use reais, like 100 or 100.50.",
  notifyNoMail:
    "E-mail is not configured on this server: your choices are kept, but nothing is sent until the operator configures SMTP.",
  unavailable: "Unavailable on this store."
}

/** The words in `lang`. */
export const teamWords = (lang: Lang): TeamWords => (lang === "en" ? en : ptBR)

/** A text with `{email}` filled in. */
export const fill = (text: string, email: string): string => text.replace("{email}", email)
