# Names every C++ function whose body is longer than max lines (awk -v max=N -f this FILES):
#   FILE:LINE: NAME is N lines (at most MAX)
# LINE is where the function's header starts; a body's length is the lines strictly between its
# opening and its closing brace. Braces are counted outside comments, string and character
# literals (raw strings too) and preprocessor lines. A brace opens a function body when every
# brace around it belongs to a namespace, class, struct, union, enum or extern block and the text
# before it since the last `;`, `{` or `}` is a call-shaped header with no top-level `=`; a
# lambda assigned at namespace or class scope counts as a function of its variable's name. What
# sits inside a body (lambdas, local classes) belongs to that body. Aggregate initializers are
# skipped whole.

function reset_header() { header = ""; header_line = 0; paren = 0 }

function add(ch) {
  if (header_line == 0 && ch !~ /[ \t]/) header_line = FNR
  header = header ch
}

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# The header with a leading `template <...>` removed: its defaults would read as initializers.
function without_template(h,    i, n, d, c) {
  h = trim(h)
  if (h !~ /^template[ \t]*</) return h
  n = length(h); d = 0
  for (i = index(h, "<"); i <= n; i++) {
    c = substr(h, i, 1)
    if (c == "<") d++
    else if (c == ">" && --d == 0) return without_template(substr(h, i + 1))
  }
  return h
}

# Position of the first `=` outside parentheses that is an assignment (not ==, <=, operator=).
function top_level_assign(h,    i, n, d, c, prev, next_c) {
  if (h ~ /operator/) return 0
  n = length(h); d = 0
  for (i = 1; i <= n; i++) {
    c = substr(h, i, 1)
    if (c == "(") d++
    else if (c == ")") d--
    else if (c == "=" && d == 0) {
      prev = substr(h, i - 1, 1); next_c = substr(h, i + 1, 1)
      if (prev !~ /[=!<>]/ && next_c != "=") return i
    }
  }
  return 0
}

function identifier_before(s) {
  s = trim(s)
  if (match(s, /[A-Za-z_~][A-Za-z0-9_:~]*$/)) return substr(s, RSTART)
  return "?"
}

# "func:NAME", "scope" or "other" for the header before an opening brace.
function classify(h,    eq, p, name, rest, close_at) {
  h = without_template(h)
  eq = top_level_assign(h)
  if (eq > 0) {
    if (index(substr(h, eq), "[") > 0) return "func:" identifier_before(substr(h, 1, eq - 1))
    return "other"
  }
  p = index(h, "(")
  if (p == 0) {
    if (h ~ /(^|[^A-Za-z0-9_])(namespace|class|struct|union|enum|extern)([^A-Za-z0-9_]|$)/)
      return "scope"
    return "other"
  }
  if (match(h, /operator[ \t]*(\(\)|[^(]*)/)) return "func:" substr(h, RSTART, RLENGTH)
  name = identifier_before(substr(h, 1, p - 1))
  if (name ~ /^[A-Z0-9_]+$/) {  # a macro such as TEST_F(Suite, Name): name it by its arguments
    rest = substr(h, p)
    close_at = index(rest, ")")
    if (close_at > 0) name = name substr(rest, 1, close_at)
  }
  return "func:" name
}

function open_brace(    kind, prev) {
  depth++
  if (body_depth > 0) return
  prev = header; sub(/[ \t]+$/, "", prev); prev = substr(prev, length(prev), 1)
  # a brace inside parentheses, or a member initializer `a_{x}` after `) :`: part of the header
  if (paren > 0 || (header ~ /\)[ \t]*:[^:]/ && prev ~ /[A-Za-z0-9_>]/)) {
    kind_at[depth] = "inline"; header = header "{"; return
  }
  kind = classify(header)
  kind_at[depth] = kind
  if (kind != "scope") {
    body_depth = depth; body_open = FNR; body_line = header_line ? header_line : FNR
  }
  reset_header()
}

function close_brace(    kind) {
  kind = kind_at[depth]
  if (body_depth > 0 && depth == body_depth) {
    if (kind ~ /^func:/ && FNR - body_open - 1 > max)
      printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME, body_line, substr(kind, 6),
             FNR - body_open - 1, max
    body_depth = 0
    reset_header()
  } else if (body_depth == 0 && kind == "inline") {
    header = header "}"
  } else if (body_depth == 0) {
    reset_header()
  }
  depth--
}

FNR == 1 {
  depth = 0; body_depth = 0; in_comment = 0; raw_end = ""; continued = 0; reset_header()
  sq = sprintf("%c", 39)
}

{
  line = $0
  if (in_comment == 0 && raw_end == "" && (continued || line ~ /^[ \t]*#/)) {
    continued = (line ~ /\\$/)
    next
  }
  n = length(line)
  for (i = 1; i <= n; i++) {
    c = substr(line, i, 1)
    if (in_comment) {
      if (c == "*" && substr(line, i + 1, 1) == "/") { in_comment = 0; i++ }
      continue
    }
    if (raw_end != "") {
      if (substr(line, i, length(raw_end)) == raw_end) { i += length(raw_end) - 1; raw_end = "" }
      continue
    }
    if (c == "/" && substr(line, i + 1, 1) == "/") break
    if (c == "/" && substr(line, i + 1, 1) == "*") { in_comment = 1; i++; continue }
    if (c == "\"") {
      if (substr(line, i - 1, 1) == "R" && substr(line, i - 2, 1) !~ /[A-Za-z0-9_]/ ||
          substr(line, i - 2, 2) ~ /^(u8|[uUL])R$/) {
        delim_end = index(substr(line, i + 1), "(")
        raw_end = ")" substr(line, i + 1, delim_end - 1) "\""
        i += delim_end
      } else {
        for (i++; i <= n; i++) {
          c = substr(line, i, 1)
          if (c == "\\") i++
          else if (c == "\"") break
        }
      }
      if (body_depth == 0) add("\"\"")
      continue
    }
    if (c == sq) {
      if (substr(line, i - 1, 1) ~ /[0-9A-Fa-f]/ && substr(line, i + 1, 1) ~ /[0-9A-Fa-f]/) continue
      for (i++; i <= n; i++) {
        c = substr(line, i, 1)
        if (c == "\\") i++
        else if (c == sq) break
      }
      if (body_depth == 0) add("' '")
      continue
    }
    if (c == "{") { open_brace(); continue }
    if (c == "}") { close_brace(); continue }
    if (body_depth > 0) continue
    if (c == ";" && paren == 0) { reset_header(); continue }
    if (c == "(") paren++
    else if (c == ")") paren--
    else if (c == ":" && trim(header) ~ /^(public|private|protected)$/) { reset_header(); continue }
    add(c)
  }
  if (body_depth == 0) add(" ")
}
