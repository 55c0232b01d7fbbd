/** Spec §7.2: a fact that tells the agent to download and execute. Kept to the spec's two regexes exactly. */

// Without the `u` flag `\w` is ASCII, as the spec requires. "iwr … | iex" passes: `iex` does not end in "sh".
const REMOTE_EXEC = /\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]*\|\s*\w*sh\b/i
const EVAL_FETCH = /\b(eval|exec|source)\b[^\n]*\$\(\s*(curl|wget|fetch)\b/i
// Each full regex needs its tail somewhere in the text. Testing the tail first is exact and keeps a line of
// many fetch verbs and no pipe from costing time quadratic in the line length.
const PIPE_TO_SHELL = /\|\s*\w*sh\b/
const FETCH_SUBSHELL = /\$\(\s*(curl|wget|fetch)\b/i

/** §7.2 download-and-execute filter. */
export const factLooksUnsafe = (text: string): boolean =>
  (PIPE_TO_SHELL.test(text) && REMOTE_EXEC.test(text)) || (FETCH_SUBSHELL.test(text) && EVAL_FETCH.test(text))
