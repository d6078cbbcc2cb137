# kdacheck's container image: the linter alone (no torch, no triton), run on the mounted tree.
#   docker build -t kdacheck .
#   docker run --rm -v "$PWD:/src" kdacheck lint deploy/
FROM python:3.12-slim
COPY pyproject.toml README.md /opt/kdacheck/
COPY kdacheck /opt/kdacheck/kdacheck
COPY kernels /opt/kdacheck/kernels
RUN pip install --no-cache-dir /opt/kdacheck && rm -rf /opt/kdacheck \
    && useradd --create-home --uid 10001 kdacheck
USER kdacheck
WORKDIR /src
# isolated (-I): a PYTHONPATH=. from the CI job must not import the mounted tree's `yaml.py`
ENTRYPOINT ["python", "-I", "-m", "kdacheck"]
CMD ["lint", "."]
