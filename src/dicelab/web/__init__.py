"""The local web page: play along with advice, a scorecard and a running review.

:func:`dicelab.web.app.create_app` builds the FastAPI application (a JSON API
documented at ``/docs`` and the page at ``/``); ``dicelab serve`` runs it.
"""
