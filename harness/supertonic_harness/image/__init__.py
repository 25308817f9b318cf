"""The Lambda image, built and run on this machine: the container engine, a stand-in base where no
registry answers, the build context, the lock files, and events replayed through the image."""
