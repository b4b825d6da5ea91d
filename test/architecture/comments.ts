// The comments of a TypeScript or JavaScript source, for tests that read what the code says about itself.
// A small scanner: strings, template literals (with their `${}`), regular expression literals and comments.

export interface Comment {
  /** 1-based line of the comment's first character. */
  line: number
  text: string
}

/** Where a `/` starts a regular expression rather than a division: after these characters or keywords. */
const REGEX_AFTER =
  /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await))\s*$/

export function commentsOf(source: string): Comment[] {
  const out: Comment[] = []
  let i = 0
  let line = 1
  /** The depth of `${` in template literals, each with the brace depth it opened at. */
  const templates: number[] = []
  let braces = 0
  const n = source.length
  const advance = (to: number) => {
    for (let k = i; k < to && k < n; k++) if (source[k] === '\n') line++
    i = to
  }
  const template = () => {
    // i is just after a backtick, or after the `}` that closes a `${`.
    while (i < n) {
      const c = source[i]
      if (c === '\\') advance(i + 2)
      else if (c === '`') return advance(i + 1)
      else if (c === '$' && source[i + 1] === '{') {
        advance(i + 2)
        templates.push(braces)
        braces++
        return
      } else advance(i + 1)
    }
  }
  while (i < n) {
    const c = source[i]
    const next = source[i + 1]
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i)
      const to = end < 0 ? n : end
      out.push({ line, text: source.slice(i + 2, to) })
      advance(to)
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2)
      const to = end < 0 ? n : end + 2
      out.push({ line, text: source.slice(i + 2, to - 2) })
      advance(to)
    } else if (c === "'" || c === '"') {
      let k = i + 1
      while (k < n && source[k] !== c && source[k] !== '\n') k += source[k] === '\\' ? 2 : 1
      advance(k + 1)
    } else if (c === '`') {
      advance(i + 1)
      template()
    } else if (c === '{') {
      braces++
      advance(i + 1)
    } else if (c === '}') {
      braces--
      advance(i + 1)
      if (templates.length && templates[templates.length - 1] === braces) {
        templates.pop()
        template()
      }
    } else if (c === '/' && REGEX_AFTER.test(source.slice(Math.max(0, i - 12), i))) {
      let k = i + 1
      let inClass = false
      while (k < n && source[k] !== '\n') {
        const d = source[k]
        if (d === '\\') k += 2
        else {
          if (d === '[') inClass = true
          else if (d === ']') inClass = false
          else if (d === '/' && !inClass) break
          k++
        }
      }
      advance(k + 1)
    } else advance(i + 1)
  }
  return out
}
