"""The web designer: a FastAPI app (JSON API + static page). See eqattn/api/app.py."""
