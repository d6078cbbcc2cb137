"""kdacheck's command line: ``lint``, ``run``, ``rules`` and ``explain``.

The CLI only wires options to the pipeline; SGLang knowledge lives in ``flags``, ``resolve``
and ``rules``. Nothing here imports torch or triton: ``run`` loads them when it runs.
"""

from __future__ import annotations

import enum
import sys
from typing import Annotated

import typer

from kdacheck import __version__, report
from kdacheck.gpus import GPUS
from kdacheck.report import FORMATS, RUN_FORMATS, spoken

app = typer.Typer(
    name="kdacheck",
    help="Pre-deploy checks for SGLang hybrid linear-attention and HiSparse models with speculative decoding.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def whole(text: str) -> int:
    """A whole-number option's value: a wrong one is named in the error (``--tp x``)."""
    try:
        return int(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a whole number") from None


GPU_HELP = f"GPU profile: {', '.join(GPUS)}"

OutputFormat = enum.Enum("OutputFormat", {n: n for n in FORMATS}, type=str)  # type: ignore[misc]


class Color(str, enum.Enum):
    auto = "auto"
    always = "always"
    never = "never"


class Threshold(str, enum.Enum):
    error = "error"
    warning = "warning"
    info = "info"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kdacheck {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[bool | None, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version and exit.")] = None,
) -> None:
    """kdacheck: catch SGLang speculative-decoding misconfigurations before they reach a GPU."""


def fail(message: str) -> typer.Exit:
    """Report that kdacheck could not do its job (exit code 2)."""
    typer.echo(f"kdacheck: error: {message}", err=True)
    return typer.Exit(2)


@app.command()
def lint(
    paths: Annotated[list[str] | None, typer.Argument(metavar="PATH", help="Launch configurations: YAML, shell, Kubernetes, Compose, folders; - for standard input.")] = None,
    cmd: Annotated[str | None, typer.Option("--cmd", metavar="COMMAND", help="Lint a launch command line given inline.")] = None,
    model: Annotated[str | None, typer.Option(envvar="KDACHECK_MODEL", metavar="MODEL", help="Model geometry: a preset name, a model folder or a config.json.")] = None,
    gpu: Annotated[str | None, typer.Option(envvar="KDACHECK_GPU", metavar="GPU", help=GPU_HELP)] = None,
    sglang_version: Annotated[str | None, typer.Option("--sglang-version", envvar="KDACHECK_SGLANG_VERSION", metavar="VERSION", help="Target SGLang version (default: each launch's image tag, else the installed SGLang, else the newest known).")] = None,
    select: Annotated[list[str] | None, typer.Option(metavar="CODES", help="Only these codes or prefixes (comma-separated or repeated).")] = None,
    ignore: Annotated[list[str] | None, typer.Option(metavar="CODES", help="Skip these codes or prefixes.")] = None,
    extend_select: Annotated[list[str] | None, typer.Option("--extend-select", metavar="CODES", help="Add these codes or prefixes to the selection.")] = None,
    failure_threshold: Annotated[Threshold | None, typer.Option("--failure-threshold", envvar="KDACHECK_FAILURE_THRESHOLD", help="Lowest severity that fails the run (default: warning).")] = None,
    output_format: Annotated[OutputFormat | None, typer.Option("--output-format", envvar="KDACHECK_OUTPUT_FORMAT", help=f"{spoken(list(FORMATS), 'lint')}.")] = None,
    output_file: Annotated[str | None, typer.Option("--output-file", "-o", metavar="FILE", help="Write the report to this file instead of standard output.")] = None,
    show_resolved: Annotated[bool, typer.Option("--show-resolved", help="Print every resolved value with its provenance.")] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when findings fail the threshold.")] = False,
    run_after: Annotated[bool, typer.Option("--run", help="Then run the kernels on the resolved configuration (kdacheck run).")] = False,
    env: Annotated[list[str] | None, typer.Option("--env", metavar="KEY=VALUE", help="KEY=VALUE: a shell variable the launch files use but do not set (repeatable).")] = None,
    env_file: Annotated[str | None, typer.Option("--env-file", metavar="FILE", help="A file of KEY=VALUE lines, as --env.")] = None,
    stdin_filename: Annotated[str | None, typer.Option("--stdin-filename", metavar="NAME", help="The name (and so the kind) of what - reads: deploy.yaml, run.sh, Dockerfile.")] = None,
    allow_outside: Annotated[bool, typer.Option("--allow-outside", help="Read --config files outside the linted repository, and write -o there (refused by default; --fix never writes outside).")] = False,
    only_launch_files: Annotated[bool, typer.Option("--only-launch-files", help="Skip named files that are not launch configurations (as the folder walk does): for pre-commit.")] = False,
    force_exclude: Annotated[bool, typer.Option("--force-exclude", help="Skip named files that the settings' `exclude` excludes (as the folder walk does): for pre-commit, which names files.")] = False,
    deployment: Annotated[bool, typer.Option("--deployment", help="The files named are one PD deployment: pair their prefill and decode roles across the files (PD rules).")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Fail when a rule could not be checked (an unknown model, no --gpu, an unset variable).")] = False,
    sglang: Annotated[bool, typer.Option("--sglang", help="Also run SGLang's own argument resolution (SGLang must be importable; --gpu simulates the device).")] = False,
    fix: Annotated[bool, typer.Option("--fix", help="Apply the safe fixes in place (full flag names, current spellings, values SGLang uses anyway), then report what is left; with -, print the fixed text.")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="With --fix or --diff: also the fixes that change what SGLang does (a guessed flag name).")] = False,
    show_diff: Annotated[bool, typer.Option("--diff", help="Print the fixes as a unified diff; write nothing (exit 1 when there is one).")] = False,
    quiet: Annotated[int, typer.Option("--quiet", "-q", count=True, help="-q: print only the findings that fail the run and the summary (nothing for clean files); -qq: print nothing (the exit code only).")] = 0,
    statistics: Annotated[bool, typer.Option("--statistics", help="Print the number of findings per rule instead of the findings.")] = False,
    show_settings: Annotated[bool, typer.Option("--show-settings", help="Print the settings that apply (configuration file, command line, environment) and exit.")] = False,
    color: Annotated[Color | None, typer.Option("--color", envvar="KDACHECK_COLOR", help="auto (a terminal without NO_COLOR), always or never.")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Never ask the Hugging Face Hub for a model's config.json (also HF_HUB_OFFLINE=1): the folder, the cache and the bundled index only.")] = False,
    isolated: Annotated[bool, typer.Option("--isolated", help="Read no configuration file (pyproject.toml, kdacheck.toml): the command line only.")] = False,
    per_file_ignores: Annotated[list[str] | None, typer.Option("--per-file-ignores", metavar="GLOB:CODES", help="Skip codes in the files a glob matches, e.g. 'legacy/*.sh:ARG003,SPEC002' (repeatable).")] = None,
    ignore_noqa: Annotated[bool, typer.Option("--ignore-noqa", help="Ignore every `# kdacheck: ignore[...]` comment: report what they suppress.")] = False,
    add_noqa: Annotated[bool, typer.Option("--add-noqa", help="Add a `# kdacheck: ignore[CODES]` comment above every launch with findings (not in JSON, nor inside a YAML string: said per file).")] = False,
    baseline: Annotated[str | None, typer.Option("--baseline", metavar="FILE", help="Report and fail on the findings this baseline does not hold (written by --write-baseline).")] = None,
    write_baseline: Annotated[str | None, typer.Option("--write-baseline", metavar="FILE", help="Write every current finding to this baseline file, then lint against it.")] = None,
) -> None:
    """Lint SGLang launch configurations and report every finding at once."""
    options = dict(locals())  # the parameters, by name: run_lint takes the same ones
    from kdacheck.lint_command import run_lint

    raise typer.Exit(run_lint(**{k: v.value if isinstance(v, enum.Enum) else v for k, v in options.items()}))


class Device(str, enum.Enum):
    auto = "auto"
    cuda = "cuda"
    cpu = "cpu"


class VerifyBackend(str, enum.Enum):
    flashinfer = "flashinfer"
    triton = "triton"


RunFormat = enum.Enum("RunFormat", {n: n for n in RUN_FORMATS}, type=str)  # type: ignore[misc]


@app.command()
def run(
    steps: Annotated[int, typer.Option(parser=whole, help="--speculative-num-steps (S).")] = 3,
    topk: Annotated[int, typer.Option(parser=whole, help="--speculative-eagle-topk (K); > 1 runs tree verify.")] = 1,
    draft_tokens: Annotated[int | None, typer.Option("--draft-tokens", parser=whole, help="Verify width D (default: S + 1 for topk 1, S·K + 1 for a tree).")] = None,
    batch: Annotated[int | None, typer.Option(parser=whole, help="Requests per verify batch (default: R on a GPU, 2 in the interpreter).")] = None,
    model: Annotated[str | None, typer.Option(help="Model geometry: preset, model folder or config.json (default: Kimi-Linear-48B).")] = None,
    tp: Annotated[int, typer.Option(parser=whole, help="Attention tensor-parallel size (heads per rank = heads / tp).")] = 1,
    args: Annotated[str | None, typer.Option("--args", help="Take everything from a launch configuration (YAML, shell, Kubernetes).")] = None,
    device: Annotated[Device, typer.Option(help="auto, cuda or cpu (Triton's interpreter).")] = Device.auto,
    buffer_steps: Annotated[int | None, typer.Option("--buffer-steps", parser=whole, help="Pretend intermediate_ssm was allocated with this many steps.")] = None,
    buffer_rows: Annotated[int | None, typer.Option("--buffer-rows", parser=whole, help="Pretend intermediate_ssm has this many rows; the batch gets one padding request on SGLang's discard row (the batch + 1 rows SGLang allocates): fewer shows what a missing discard row overwrites.")] = None,
    ssm_dtype: Annotated[str | None, typer.Option("--ssm-dtype", metavar="DTYPE", help="Without --args: the SSM state dtype, as --mamba-ssm-dtype (float32, bfloat16 or float16; default float32).")] = None,
    plan_capacity: Annotated[int | None, typer.Option("--plan-capacity", parser=whole, help="Pretend the HiSparse miss plan has this many columns.")] = None,
    verify_backend: Annotated[VerifyBackend | None, typer.Option("--verify-backend", help="Without --args: flashinfer (FlashInfer's path: SGLang's step-count check refuses a short scratch) or triton (SGLang's Triton verify kernel: no check, the corruption is shown). Default: the backend SGLang picks for the model and --gpu, named in the report (Kimi-Linear: nv_cutedsl, which runs the Triton kernel; the others: triton).")] = None,
    sglang_version: Annotated[str | None, typer.Option("--sglang-version", help="Target SGLang version for --args.")] = None,
    gpu: Annotated[str | None, typer.Option(help=f"{GPU_HELP}: SGLang's backends are resolved for it (--args, and the default --verify-backend).")] = None,
    output_format: Annotated[RunFormat, typer.Option("--output-format", help=f"{spoken(list(RUN_FORMATS), 'run')}.")] = RunFormat("full"),
    work_budget: Annotated[float | None, typer.Option("--work-budget", metavar="SECONDS", min=0.0, help="Refuse a run estimated to need more CPU seconds (process time, not wall time: a loaded machine takes longer; default: 300 s in the interpreter, 600 s on a GPU).")] = None,
) -> None:
    """Allocate the buffers at the configured shapes and launch the real Triton kernels."""
    from kdacheck import config, runner
    from kdacheck.findings import InputError
    from kdacheck.lint import lint_path
    from kdacheck.results import Plan

    def make_plans(dev: str) -> list[Plan]:
        if args is not None:
            config.reset()  # the file's [tool.kdacheck], as lint reads it; the options win
            opts = config.options(config.for_file(args), config.Overrides(gpu=gpu, sglang_version=sglang_version, model=model))
            result = lint_path(args, opts)
            if result.error:
                raise InputError(result.error)
            if not result.resolved:
                raise InputError(f"{args}: no SGLang launch command found")
            if ssm_dtype is not None:
                raise InputError("--ssm-dtype applies without --args (with --args the launch's --mamba-ssm-dtype decides)")
            return [runner.plan_from_resolved(cfg, batch, buffer_steps, plan_capacity, dev == "cpu", buffer_rows) for cfg in result.resolved]
        return [runner.plan_from_options(steps, topk, draft_tokens, batch, model, tp, buffer_steps, plan_capacity, dev == "cpu",
                                         verify_backend.value if verify_backend is not None else None, gpu,
                                         ssm_dtype or "float32", buffer_rows)]

    try:
        guess = runner.guess_device(device.value)
        plans = make_plans(guess)
        runner.check_work(plans, guess, work_budget)  # before torch is imported
        dev = runner.pick_device(device.value)
        if dev != guess:  # a driver without a usable GPU: plan again for the interpreter
            plans = make_plans(dev)
            runner.check_work(plans, dev, work_budget)
        code = 0
        rep = report.run_renderer(output_format.value, dev, sys.stdout)
        progress = sys.stderr if sys.stderr.isatty() and rep.progress else None
        done = []
        for plan in plans:
            rc, results = runner.execute(plan, dev, rep, progress=progress)
            code = max(code, rc)
            done.append((plan, results))
        rep.run_done(done)
    except (InputError, ValueError, config.ConfigError) as e:
        raise fail(str(e)) from None
    raise typer.Exit(code)


class RulesFormat(str, enum.Enum):
    table = "table"
    json = "json"


@app.command()
def rules(
    output_format: Annotated[RulesFormat, typer.Option("--output-format", help="table or json")] = RulesFormat.table,
    coverage: Annotated[bool, typer.Option("--coverage", help="SGLang's start-up refusals per version and file: covered by a rule, in scope not covered, out of scope")] = False,
) -> None:
    """List every rule, one per line: code, severity, name, summary, versions, documentation link."""
    from kdacheck.rules import all_rules

    if coverage:
        from kdacheck import census

        if output_format == RulesFormat.json:
            import json

            typer.echo(json.dumps(census.coverage_json(), indent=2))
        else:
            typer.echo(census.coverage_text(), nl=False)
        return
    if output_format == RulesFormat.json:
        import json

        typer.echo(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity.label, "summary": r.summary, "versions": r.versions, "url": r.help_uri} for r in all_rules()], indent=2))
        return
    # one line per rule, as `ruff rule --all` lists them: grep-able, no wrapping, the doc link last
    rules_ = all_rules()
    w = max(len(r.name) for r in rules_)
    for r in rules_:
        typer.echo(f"{r.code:<9} {r.severity.label:<7} {r.name:<{w}}  {r.summary} ({r.versions})  {r.help_uri}")


@app.command()
def explain(code: Annotated[str, typer.Argument(help="A rule code, e.g. KDA002.")]) -> None:
    """Print a rule's whole documentation: what, why, SGLang's message, the fix, sources."""
    from kdacheck.docs import rule_markdown
    from kdacheck.rules import REGISTRY

    rule = REGISTRY.get(code.strip().upper())
    if rule is None:
        import difflib

        from kdacheck.sanitize import visible_name

        close = difflib.get_close_matches(code.strip().upper()[:20], sorted(REGISTRY), n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise fail(f"unknown rule {visible_name(code[:40])!r}{hint}: see `kdacheck rules`")
    typer.echo(rule_markdown(rule))


class PlanFormat(str, enum.Enum):
    table = "table"
    json = "json"


class PlanEmit(str, enum.Enum):
    shell = "shell"
    yaml = "yaml"
    lws = "lws"


@app.command()
def plan(
    model: Annotated[str, typer.Option(metavar="MODEL", help="A preset name, a model folder or a config.json.")],
    gpu: Annotated[str, typer.Option(metavar="GPU", help=GPU_HELP)],
    tp: Annotated[int | None, typer.Option(parser=whole, help="Tensor-parallel size (fixed).")] = None,
    gpus: Annotated[int | None, typer.Option(parser=whole, help="GPUs to lay out as TP, DP replicas or attention DP (instead of --tp).")] = None,
    sglang_version: Annotated[str | None, typer.Option("--sglang-version", metavar="VERSION", help="Target SGLang version (default: installed, else newest known).")] = None,
    args: Annotated[str | None, typer.Option("--args", metavar="FILE", help="A launch file whose other flags stay fixed.")] = None,
    min_context: Annotated[int, typer.Option("--min-context", metavar="TOKENS", parser=whole, help="KV tokens each request must have at the planned R.")] = 4096,
    acceptance: Annotated[float | None, typer.Option(metavar="RATE", help="Per-token acceptance rate (default: per algorithm, docs/plan.md).")] = None,
    budget_s: Annotated[float, typer.Option("--budget-s", metavar="SECONDS", help="Time budget of the search.")] = 8.0,
    draft: Annotated[list[str] | None, typer.Option(metavar="ALGORITHM=PATH", help="A draft model for EAGLE, EAGLE3, DFLASH or DSPARK (repeatable).")] = None,
    emit: Annotated[PlanEmit | None, typer.Option(help="Write the chosen launch as a shell script, a --config YAML or LeaderWorkerSet manifests (to -o, else standard output).")] = None,
    output_file: Annotated[str | None, typer.Option("--output-file", "-o", metavar="FILE", help="Where --emit writes (- for standard output).")] = None,
    output_format: Annotated[PlanFormat, typer.Option("--output-format", help="table or json.")] = PlanFormat.table,
    top: Annotated[int, typer.Option(min=1, max=1000, help="Candidates shown (and confirmed by --run / --sglang: at most 3).")] = 10,
    run_kernels: Annotated[bool, typer.Option("--run", help="Run the verify and gather kernels of the top 3 candidates.")] = False,
    sglang: Annotated[bool, typer.Option("--sglang", help="Pass the top 3 lines through SGLang's own resolution (SGLang must be importable).")] = False,
    allow_outside: Annotated[bool, typer.Option("--allow-outside", help="Write -o outside the working directory's repository.")] = False,
    min_tokens_per_user: Annotated[float | None, typer.Option("--min-tokens-per-user", metavar="TOKENS_PER_S", help="Keep lines whose estimated tokens/s per request reach this (docs/plan.md).")] = None,
    min_tokens_per_gpu: Annotated[float | None, typer.Option("--min-tokens-per-gpu", metavar="TOKENS_PER_S", help="Keep lines whose estimated tokens/s per GPU reach this (docs/plan.md).")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="The wide table: every memory column per candidate (default: 80 columns).")] = False,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress", help="Progress on standard error during a search over ~2 s (default: on a terminal).")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Never ask the Hub for a model id's config.json (the cache and the bundled index only).")] = False,
    pd: Annotated[bool, typer.Option("--pd", help="Plan a prefill/decode pair: decode lines, each with its prefill twin, linted together.")] = False,
) -> None:
    """Search the launch space for a model on a GPU: every kept launch lints clean and fits memory."""
    from kdacheck.findings import InputError
    from kdacheck.plan import PlanError, Request
    from kdacheck.plan import emit as plan_emit
    from kdacheck.plan import run as plan_run
    from kdacheck.plan.confirm import require_sglang, sglang_check
    from kdacheck.plan.confirm import run_kernels as confirm_kernels
    from kdacheck.plan.space import DRAFT_ALGORITHMS
    from kdacheck.sanitize import visible_line

    def refuse(message: str) -> typer.Exit:
        if output_format is PlanFormat.json and emit is None:  # exit 2 still writes a JSON document saying why
            plan_emit.render_error(message, sys.stdout)
        return fail(message)

    if tp is not None and gpus is not None:
        raise refuse("--tp and --gpus: give one of them")
    if pd and emit is PlanEmit.yaml:
        raise refuse("--emit yaml: a --config file holds one server; with --pd use --emit shell or --emit lws")
    drafts: dict[str, str] = {}
    for d in draft or []:
        algo, eq, path = d.partition("=")
        if not eq or algo.strip().upper() not in DRAFT_ALGORITHMS or not path or len(path) > 4096:
            raise refuse(f"--draft {visible_line(d[:200])!r}: write ALGORITHM=PATH with {', '.join(DRAFT_ALGORITHMS)}")
        drafts[algo.strip().upper()] = path
    try:
        if sglang:
            require_sglang()
        res = plan_run(Request(model=model, gpu=gpu, tp=tp, gpus=gpus, sglang_version=sglang_version, args_file=args,
                               min_context=min_context, acceptance=acceptance, budget_s=budget_s, drafts=drafts,
                               offline=offline, min_tokens_per_user=min_tokens_per_user, min_tokens_per_gpu=min_tokens_per_gpu, progress=sys.stderr.isatty() if progress is None else progress, pd=pd))
        confirmed = res.candidates[: min(3, top)]
        if run_kernels:
            res.notes += confirm_kernels(confirmed)
        if sglang:
            res.notes += sglang_check(confirmed, res.request.gpu)
        if output_format is PlanFormat.json and emit is None:
            plan_emit.render_json(res, sys.stdout, top)
        elif emit is None or (output_file not in (None, "-")):
            plan_emit.render_table(res, sys.stdout, top, wide) if output_format is PlanFormat.table else plan_emit.render_json(res, sys.stdout, top)
        if emit is not None:
            best = res.candidates[0]
            text = {PlanEmit.shell: plan_emit.shell_text, PlanEmit.yaml: plan_emit.yaml_text,
                    PlanEmit.lws: plan_emit.lws_text}[emit](best, res)
            plan_emit.write(output_file or "-", text, allow_outside)
    except (PlanError, InputError, ValueError) as e:
        raise refuse(visible_line(str(e))) from None
    failed = (run_kernels and any(c.run and not c.run["passed"] for c in confirmed)) or \
        (sglang and any(c.sglang and c.sglang.get("verdict") != "starts" for c in confirmed))
    raise typer.Exit(1 if failed else 0)
