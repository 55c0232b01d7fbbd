import { Logger, LogLevel } from "effect"

/**
 * The app's log lines (warnings about repairs and fallbacks a test provokes on purpose) kept instead of printed:
 * into `lines` as `WARN <message>` for a test that asserts them, or nowhere. A passing run stays quiet.
 */
export const capturedLogs = (lines?: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      lines?.push(`${LogLevel.Warning === logLevel ? "WARN" : logLevel.label} ${text}`)
    })
  )

export const quietLogs = capturedLogs()
