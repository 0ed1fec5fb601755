# topics.awk: turns the help topics (src/cli/help/NAME.md, given in order) into the C table
# help_topics[] (src/cli/cli.h) that `hyrax help` and `hyrax help --man` render (src/cli/help.c).
# Each file is one string literal; its first line, "# PAGE: summary", names its man page (hyrax for
# the main page, else hyrax-NAME) and gives the summary.
# Run by make with POSIX awk: `awk -f topics.awk src/cli/help/*.md > help_topics.c`.
function lit(s,    out, i, c) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" || c == "\"") out = out "\\" c
        else if (c == "?") out = out "\\?"          # no trigraphs
        else if (c == "\t") out = out "\\t"
        else if (c == "\n") out = out "\\n"
        else out = out c
    }
    return "\"" out "\""
}
BEGIN {
    print "/* help_topics.c: generated from src/cli/help/NAME.md by src/cli/help/topics.awk; do not edit. */"
    print "#include \"cli.h\""
    print ""
    print "const help_topic help_topics[] = {"
    n = 0
}
FNR == 1 {
    if (n++) print "    },"
    name = FILENAME
    sub(/.*\//, "", name)
    sub(/\.md$/, "", name)
    summary = $0
    if (summary !~ /^# hyrax(-[a-z0-9]+)?: /) {
        print FILENAME ":1: the first line must be '# hyrax-NAME: summary'" > "/dev/stderr"
        exit 1
    }
    page = summary
    sub(/^# /, "", page)
    sub(/:.*/, "", page)
    if (page != "hyrax" && page != "hyrax-" name) {
        print FILENAME ":1: the page of " name ".md is hyrax-" name " (or hyrax, the main page)" > "/dev/stderr"
        exit 1
    }
    sub(/^# [^:]*: /, "", summary)
    printf "    {%s, %s, %s,\n", lit(name), lit(page), lit(summary)
}
{ printf "     %s\n", lit($0 "\n") }
END {
    if (n) print "    },"
    print "};"
    print "const size_t help_n_topics = " n ";"
}
