"""Rule documentation, written once in each rule and rendered here for ``explain``,
``docs/rules.md`` and SARIF's rule descriptors."""

from __future__ import annotations

from kdacheck.rules import Rule, all_rules


def rule_markdown(rule: Rule, heading: str = "##") -> str:
    out = [f"{heading} {rule.code}: {rule.summary}", ""]
    out.append(f"Name: `{rule.name}` · severity: **{rule.severity.label}** · SGLang versions: {rule.versions}")
    scope = [", ".join(f.label for f in rule.families)] if rule.families else []
    scope += ["speculative decoding only"] if rule.speculative else []
    scope += ["needs the model's geometry"] if rule.needs == "model" else []
    scope += ["needs the model's state (its architecture or config)"] if rule.needs == "state" else []
    if scope:
        out.append(f"Scope: {'; '.join(scope)}")
    out += ["", f"{heading}# What", "", rule.what, "", f"{heading}# Why", "", rule.why]
    if rule.sglang_message:
        out += ["", f"{heading}# SGLang's message", "", "```", rule.sglang_message, "```"]
    out += ["", f"{heading}# How to fix", "", rule.fix]
    if rule.changes:
        out += ["", f"{heading}# Across versions", ""] + [f"- {c}" for c in rule.changes]
    if rule.inferred:
        out += ["", f"{heading}# Inferred, not read", "", rule.inferred]
    if rule.example:
        out += ["", f"{heading}# Example that triggers it", "", "```", rule.example, "```"]
    if rule.sources:
        out += ["", f"{heading}# Checked against SGLang's source", ""] + [f"- {s}" for s in rule.sources]
    return "\n".join(out) + "\n"


def rules_markdown() -> str:
    rules = all_rules()
    out = [
        "# kdacheck rules",
        "",
        "Generated from the rules themselves by `python -m kdacheck.docs > docs/rules.md`; "
        "`kdacheck explain CODE` prints the same text. Do not edit by hand.",
        "",
        "| code | severity | summary | when it fires, SGLang | versions |",
        "|---|---|---|---|---|",
    ]
    out += [f"| [{r.code}](#{r.code.lower()}) | {r.severity.label} | {r.summary} | {r.verdict} | {r.versions} |" for r in rules]
    out.append("")
    for r in rules:
        out.append(f'<a id="{r.code.lower()}"></a>')
        out.append("")
        out.append(rule_markdown(r))
    from kdacheck.census import coverage_markdown

    out.append(coverage_markdown())
    return "\n".join(out)


if __name__ == "__main__":
    import sys

    sys.stdout.write(rules_markdown())
