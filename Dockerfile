# One image for web, worker, beat and the stand-in game server.
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY orchestrator ./orchestrator
COPY workers ./workers
COPY templates ./templates
COPY migrations ./migrations
COPY alembic.ini ./
COPY events ./events
RUN pip install --no-cache-dir -e '.[pgn]'
EXPOSE 8000 8100
CMD ["olympiad", "serve", "--host", "0.0.0.0", "--port", "8000"]
