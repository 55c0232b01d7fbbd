import { Logger, LogLevel } from "effect"
import { printable } from "../../domain/text/printable.js"

/** Every warning printed by this process, so a reminder does not repeat what a repair already said. */
export const warned: Array<string> = []

/** Warnings (repairs the store made, fallbacks) as one plain line on stderr; debug noise stays out. */
export const cliLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ logLevel, message }) => {
    if (LogLevel.lessThan(logLevel, LogLevel.Warning)) return
    const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
    warned.push(text)
    // on a terminal, first erase a progress spinner's line so the warning is not written into it
    process.stderr.write(
      `${process.stderr.isTTY ? "\r\u001b[K" : ""}tmem: ` +
        `${logLevel._tag === "Warning" ? "warning" : logLevel.label.toLowerCase()}: ` +
        `${printable(text.replace(/^memory: /, ""))}\n`
    )
  })
)
