"""Signed verification summaries: in-toto Statements (SLSA VSA) in DSSE envelopes.

The statements (``statement``) are plain values; signing and checking (``keys``,
``envelope``, ``check``) use securesystemslib's signer API and DSSE, the ``attest`` extra,
so nothing here is imported until a run asks for an attestation (docs/attestation.md).
"""
