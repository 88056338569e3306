"""The terminal client for statki (installed as ``statki_client``)."""

__all__: list[str] = []
