/** Which check refused a text: the four content-scan steps of spec §7.1, plus the §7.2 download-and-execute filter. */
export type ScanFamily = "invisible" | "confusable" | "injection" | "credential" | "unsafe"

/**
 * One reason a text was refused. `code` is a stable kebab-case reason code (e.g. "hidden-unicode",
 * "ignore-previous-instructions", "openai-key"); `label` is the human label from the spec (e.g. "hidden unicode
 * characters", "ignore previous instructions", "potential credential material").
 */
export interface Finding {
  readonly family: ScanFamily
  readonly code: string
  readonly label: string
}
