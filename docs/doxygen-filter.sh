#!/bin/sh
# Doxygen filter for clstream's headers (FILTER_PATTERNS in Doxyfile.in):
# prints the header with its plain C comments turned into Doxygen comments,
# so that the header itself keeps ordinary C comments.
#   - The comment opening the file documents the file (\file).
#   - A comment at column 0 documents what follows it.  When it is followed
#     by several declarations with no blank line between them (the header's
#     way of documenting a group, such as the four event flags), they become
#     a Doxygen member group and the comment documents each of them
#     (DISTRIBUTE_GROUP_DOC).  No line is added or removed, so Doxygen's
#     warnings give the header's own line numbers.
#   - A comment after a field's or value's `;` or `,` documents that member.
#   - Indented comments on their own line (headings inside a struct),
#     section rules (/* ---- Streams ---- */) and preprocessor-line comments
#     stay plain.
# Usage (by Doxygen): doxygen-filter.sh FILE
exec awk '
function trailing(line,   decl) {
  if (line ~ /^#/) return line
  if (!match(line, /[;,][ \t]*\/\* /)) return line
  decl = substr(line, 1, RSTART + RLENGTH - 4)
  line = decl "/**< " substr(line, RSTART + RLENGTH)
  # "int major, minor; /* ... */" declares several members: group them so
  # that the comment documents each.
  if (decl ~ /^[ \t]+[A-Za-z_][^;]*,[^;]*;[ \t]*$/ && line ~ /\*\/[ \t]*$/)
    line = one_line_group(line)
  return line
}
function one_line_group(line,   indent) {
  match(line, /^[ \t]*/)
  indent = substr(line, 1, RLENGTH)
  return indent "/** @{ */ " substr(line, RLENGTH + 1) " /** @} */"
}
# A line that starts a declaration at file scope.
function starts_decl(line) {
  return line ~ /^(#define|typedef|CLS_API|struct|enum|extern)[ \t(]/
}
function flush(   i, n, line) {
  n = 0
  for (i = 1; i <= np; ++i) if (starts_decl(para[i])) ++n
  # The group markers go on existing lines: Doxygen reports warnings at
  # the filtered line numbers, which must stay those of the header.
  for (i = 1; i <= np; ++i) {
    line = trailing(para[i])
    if (n >= 2 && i == 1) line = "/** @{ */ " line
    print line
  }
  # Closed on the line that ends the paragraph (a blank line, usually):
  # after a #define the marker would be part of the macro.
  if (n >= 2) close_group = 1
  np = 0; collecting = 0
}
NR == 1 && $0 == "/*" { print "/** \\file"; in_comment = 1; next }
in_comment {
  print
  if ($0 ~ /\*\//) { in_comment = 0; if (doc) { collecting = 1; np = 0 } }
  next
}
collecting {
  if ($0 ~ /^[ \t]*$/ || $0 ~ /^\/\*/) flush()
  else { para[++np] = $0; next }
}
close_group { $0 = "/** @} */ " $0; close_group = 0 }
/^\/\*\* @} \*\/ \/\* ----/ { print; next }
/^\/\* ----/ { print; next }
/^(\/\*\* @} \*\/ )?\/\* / {
  sub(/\/\* /, "/** ")
  print
  doc = 1
  if ($0 ~ /\*\//) { collecting = 1; np = 0 } else in_comment = 1
  next
}
{ doc = 0; print trailing($0) }
END {
  if (collecting) flush()
  if (close_group) print "/** @} */"
}
' "$1"
