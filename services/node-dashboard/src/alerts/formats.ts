/**
 * The body of a notification in each target format. Generic JSON carries every field; ntfy takes
 * the message as a plain-text body to the topic URL with Title/Priority/Tags headers; Slack incoming
 * webhooks take {"text"}; Discord webhooks take {"content"} (at most 2000 characters) and are told
 * not to resolve mentions, so node text can never ping @everyone.
 */
export const TARGET_FORMATS = ['json', 'ntfy', 'slack', 'discord'] as const
export type TargetFormat = (typeof TARGET_FORMATS)[number]

export type NotificationEvent = 'fired' | 'resolved' | 'test'

/** What is sent, whatever the format (stored with the delivery; no secret in it). */
export interface Notification {
  event: NotificationEvent
  rule: { id: number; kind: string; threshold: number | null; description: string } | null
  title: string
  message: string
  at: string
}

export interface WebhookBody {
  contentType: string
  headers: Record<string, string>
  body: string
}

const DISCORD_MAX = 2000
// Header values must be printable Latin-1 without line breaks.
const headerText = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200)

export function webhookBody(format: TargetFormat, n: Notification): WebhookBody {
  const line = `${n.title}: ${n.message}`
  switch (format) {
    case 'json':
      return { contentType: 'application/json', headers: {}, body: JSON.stringify(n) }
    case 'ntfy':
      return {
        contentType: 'text/plain; charset=utf-8',
        headers: {
          Title: headerText(n.title),
          Priority: n.event === 'fired' ? 'high' : 'default',
          Tags: n.event === 'fired' ? 'warning' : n.event === 'resolved' ? 'white_check_mark' : 'bell',
        },
        body: n.message,
      }
    case 'slack':
      return { contentType: 'application/json', headers: {}, body: JSON.stringify({ text: line }) }
    case 'discord':
      return {
        contentType: 'application/json',
        headers: {},
        body: JSON.stringify({
          content: line.length > DISCORD_MAX ? `${line.slice(0, DISCORD_MAX - 1)}…` : line,
          allowed_mentions: { parse: [] },
        }),
      }
  }
}
