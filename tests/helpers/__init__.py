"""What several test modules share: minting, corpora, services, page drivers."""
